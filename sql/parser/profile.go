package parser

// ShowQueryProfile is Doris's SHOW QUERY PROFILE "path": "/" lists the
// kept profiles, "/<query_id>" is one profile's text.
type ShowQueryProfile struct{ Path string }

func (*ShowQueryProfile) statement() {}
