// Package jsonwrite appends JSON strings and object members to a byte slice in one pass, without
// reflection: the request encoder's building blocks.
//
// What it promises: String writes a string as encoding/json does, except that <, > and & are kept
// as they are (quotes, backslashes and control characters escaped, invalid UTF-8 replaced by
// U+FFFD, U+2028 and U+2029 escaped), so what it writes decodes to what encoding/json's encoding
// decodes to; IntField and FloatField write a number exactly as encoding/json writes it, FloatField
// for finite numbers only (the caller refuses NaN and infinities first). Field, IntField and
// FloatField write nothing for an empty string or a nil pointer. HTMLString writes a string byte for
// byte as encoding/json does, for what must go on the wire exactly as encoding/json would put it.
// Verbatim tells, in one pass, when encoding/json writes a json.RawMessage as it is, so that a raw
// value it proves can be copied rather than scanned and compacted again. Each only appends to b.
package jsonwrite
