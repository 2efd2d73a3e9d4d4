/**
 * Who a Kubernetes bearer token belongs to, asked of the API server ({@link
 * dev.berth.kubernetes.identity.KubernetesTokenReview}).
 */
@NullMarked
package dev.berth.kubernetes.identity;

import org.jspecify.annotations.NullMarked;
