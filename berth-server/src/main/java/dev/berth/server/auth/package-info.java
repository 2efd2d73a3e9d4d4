/**
 * Who is asking and what they may do, without HTTP: the administrator's token ({@link
 * dev.berth.server.auth.AdminToken}), resolving a bearer token to a {@link
 * dev.berth.core.tenant.Principal} ({@link dev.berth.server.auth.Authenticator}), issuing tenant
 * tokens ({@link dev.berth.server.auth.TenantTokens}) and the create, visibility and quota policy
 * ({@link dev.berth.core.tenant.Admission}). Clear tokens exist only in requests, in the admin
 * token file and in the one answer that issues a tenant token; everything kept is a SHA-256 digest.
 */
@NullMarked
package dev.berth.server.auth;

import org.jspecify.annotations.NullMarked;
