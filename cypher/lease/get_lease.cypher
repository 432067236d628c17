// The lease's current holder, expiry and number of rounds granted, if the lease exists.
// mode: read
// returns: optional
// :param name => "maintenance"
MATCH (l:Lease {name: $name})
RETURN l.holder AS holder, l.expires_at AS expires_at, l.rounds AS rounds
