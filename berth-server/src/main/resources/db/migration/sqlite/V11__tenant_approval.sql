-- The least approval policy of a tenant's agent sessions' tool calls (off, external, all): it
-- tightens a type's policy, never loosens it. Tenants written before it existed gate nothing more.
ALTER TABLE tenants ADD COLUMN approval TEXT NOT NULL DEFAULT 'off'
  CHECK (approval IN ('off', 'external', 'all'));
