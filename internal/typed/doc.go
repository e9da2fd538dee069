// Package typed decodes JSON into Go values exactly as encoding/json does, in one pass over the
// text, and finds a JSON value in prose.
//
// [Decode] and [DecodeProven] read a value from a plan cached per type: structs with named fields,
// slices, arrays, maps with string keys, pointers, strings, numbers and bools are decoded here; any
// part that decodes itself (Unmarshaler, TextUnmarshaler, interfaces, []byte, ...) is handed to
// json.Unmarshal on its own text. Whatever the pass is not sure to decode as encoding/json would
// starts over with json.Unmarshal on the whole text, so the value and the error are always
// encoding/json's on the running toolchain. DecodeProven also proves the value valid against a
// schema.QuickSchema in the same pass, or reports that it cannot.
//
// [FirstJSON] and [TextValue] find the value a model wrote in prose, whole or as it streams.
//
// What it promises: on any input, the value and the error json.Unmarshal would give, and no panic.
// The values it builds share memory only with what it cut them from (strings from the text, slices
// and pointees from blocks it made for them); a slice's capacity never reaches past its own
// elements, so appending to it never writes over another value.
//
// The default build writes values through package unsafe; a build with the purego tag writes them
// through reflect instead (decode_safe.go), with the same results. Both twins are compiled in the
// default build, so that tests feed them the same input and compare what they build.
package typed
