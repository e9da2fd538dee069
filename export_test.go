package infergate

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// ChunkDecoders decodes events' data the two ways a stream can, each into its own buffers reused
// from event to event as in a stream, so that tests can hold the fast decoder to encoding/json.
type ChunkDecoders struct{ fast, slow ChatStream }

// DecodedChunk is what one way made of an event: whether it took the event as a chunk (not a
// malformed event, not an error event), and the chunk.
type DecodedChunk struct {
	Taken bool
	Chunk ChatCompletionChunk
}

// Fast decodes data as a stream does: the fast decoder first, encoding/json when it declines.
func (d *ChunkDecoders) Fast(data []byte) (got DecodedChunk, declined bool) {
	s := &d.fast
	if s.mem.decode(data, &s.cur) {
		return DecodedChunk{Taken: true, Chunk: s.cur}, false
	}
	return s.result(s.decodeJSON(data)), true
}

// JSON decodes data with encoding/json alone.
func (d *ChunkDecoders) JSON(data []byte) DecodedChunk {
	s := &d.slow
	return s.result(s.decodeJSON(data))
}

func (s *ChatStream) result(taken bool) DecodedChunk {
	if !taken || isPresent(s.wire.Error) {
		return DecodedChunk{}
	}
	return DecodedChunk{Taken: true, Chunk: s.wire.public(&s.mem)}
}

// ObjectSchemasOf returns what an object request for values of t sends as its function's
// parameters, the schema that checks the call's arguments, and whether they carry the value in an
// envelope ({"value": ...}).
func ObjectSchemasOf(t reflect.Type) (sent json.RawMessage, check *jsonschema.Resolved, wrapped bool, err error) {
	ts := schemaOf(t)
	if err := ts.forObjects(); err != nil {
		return nil, nil, false, err
	}
	return ts.call.sent, ts.call.resolved.Resolved(), ts.wrapped, nil
}

// ReuseChunkLists makes a stream reuse its chunks' lists, as a typed answer's stream does.
func ReuseChunkLists(s *ChatStream) { s.mem.setTransient() }
