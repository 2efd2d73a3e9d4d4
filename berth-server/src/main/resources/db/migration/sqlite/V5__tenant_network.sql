-- The most network a tenant's sessions may have: 'egress' (the server's mode) or 'none'.
ALTER TABLE tenants ADD COLUMN network TEXT NOT NULL DEFAULT 'egress'
  CHECK (network IN ('none', 'egress'));
