// Package schema checks JSON values against JSON Schemas with bounded work, and says in plain words
// why a value does not match.
//
// [Check] turns a schema into a [Checked] one: its references are resolved, a schema that could
// make validation loop is refused ([CycleError]), and every validation's work is bounded from the
// schema's graph and the value's size before the validator (github.com/google/jsonschema-go) runs,
// so a value whose check would cost more fails with [ErrTooCostly] instead. For the schemas derived
// from plain Go types it also compiles a [QuickSchema], which proves JSON text valid in one pass over
// the text without decoding it ([Checked.ProvenValid]); a [Checker] is that pass, which a decoder
// may drive value by value ([Checker.Value], [Node]'s Admits methods) to decode and prove at once.
//
// What it promises: a proof is only ever "valid": when the one pass cannot prove a value valid it
// says nothing, and [Checked.Validate] decides with the validator's own errors. Validate never
// recurses deeper, nor works longer, than its bounds; neither does [Explain], which writes for a
// model what the validator's errors write for programmers. [OwnSchema] and [QuotedSchema] give the
// schema of types whose JSON is not their structure (MarshalJSON, ",string").
//
// Nothing here reads memory through package unsafe in a build with the purego tag: the one use, a
// number's text viewed as a string without a copy, has a copying twin there, and the Checker's Safe
// field selects the twin in any build, so that a test can run both.
package schema
