/**
 * The Kubernetes runtime: {@link dev.berth.kubernetes.runtime.KubernetesRuntime} runs each session
 * incarnation as one pod running {@code berth agent}, observes the installation's pods through one
 * informer, and tells the data plane where each agent answers.
 */
@NullMarked
package dev.berth.kubernetes.runtime;

import org.jspecify.annotations.NullMarked;
