-- The Kubernetes service accounts whose tokens act for a tenant, written namespace/name. The primary
-- key is what makes a service account act for at most one tenant, even under concurrent writes.
CREATE TABLE tenant_service_accounts (
  account TEXT NOT NULL PRIMARY KEY CHECK (length(account) BETWEEN 3 AND 317),
  tenant  TEXT NOT NULL REFERENCES tenants (id)
) STRICT;

CREATE INDEX tenant_service_accounts_by_tenant ON tenant_service_accounts (tenant);
