package dev.berth.kubernetes.store;

import io.fabric8.kubernetes.api.model.ConfigMap;

/**
 * What the session and operation records share: the ConfigMaps, how a session's one is read and
 * changed, the installation's layout, and the lease tokens that fence their writes.
 */
record SessionObjects(
    KubeObjects<ConfigMap> configMaps,
    SessionConfigMaps codec,
    Layout layout,
    IssuedTokens tokens) {}
