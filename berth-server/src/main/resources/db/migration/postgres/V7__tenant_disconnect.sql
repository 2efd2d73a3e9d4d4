-- What a tenant's session runtimes do when their control lease expires (the control plane stopped
-- renewing it): continue for disconnect_grace_seconds then stop, or stop at once. Both NULL: the
-- server's default (--disconnect-policy, --disconnect-grace), as for tenants written before.
ALTER TABLE tenants ADD COLUMN disconnect_policy TEXT
  CHECK (disconnect_policy IN ('continue', 'stop'));
ALTER TABLE tenants ADD COLUMN disconnect_grace_seconds BIGINT
  CHECK (disconnect_grace_seconds BETWEEN 0 AND 604800);
