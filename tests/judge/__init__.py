"""labkit.judge, the judge's machinery: the wire, sessions, handles, reset, meters, contract and source checks."""
