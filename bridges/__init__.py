"""Optional bridges from metricc to other libraries, each imported only when used."""
