-- Version 7: where each signed-in device was last used from, shown to the account's owner in
-- `sessions`: the network only (an IPv4 /24 or an IPv6 /48), never the whole address.
ALTER TABLE devices ADD COLUMN network TEXT;
