package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"reflect"
	"strings"
)

// SpeechFormat is the audio format of generated speech.
type SpeechFormat string

// The speech formats the gateway produces.
const (
	SpeechFormatMP3  SpeechFormat = "mp3"  // MPEG audio layer III, the default
	SpeechFormatOpus SpeechFormat = "opus" // Opus in Ogg, small, for streaming and voice apps
	SpeechFormatAAC  SpeechFormat = "aac"  // AAC, as Apple devices prefer
	SpeechFormatFLAC SpeechFormat = "flac" // lossless, compressed
	SpeechFormatWAV  SpeechFormat = "wav"  // uncompressed PCM with a WAV header
	SpeechFormatPCM  SpeechFormat = "pcm"  // raw samples, no header
)

// DefaultVoice is the voice the gateway speaks with when SpeechRequest.Voice is empty.
const DefaultVoice = "af_alloy"

// SpeechRequest is the text to speak and how.
type SpeechRequest struct {
	Input string `json:"input"` // the text to speak; required
	// Model is the text-to-speech model's name or hex id; empty lets the gateway choose.
	Model string `json:"model,omitempty"`
	// Voice names the voice; empty means DefaultVoice.
	Voice string `json:"voice,omitempty"`
	// ResponseFormat is the audio format; empty means SpeechFormatMP3.
	ResponseFormat SpeechFormat `json:"response_format,omitempty"`
	// Speed is the speaking rate, 0.25 to 4.0; nil means normal speed (1.0).
	Speed *float64 `json:"speed,omitempty"`
	// SessionID runs the request in this provider session; empty uses the client's (WithSessionID)
	// or, failing that, the session tied to the API key.
	SessionID string `json:"session_id,omitempty"`
	// Extra holds fields this type does not model (a provider's "lang_code", say), merged into the
	// request's top-level JSON; a key the request already sends is a *ValidationError.
	Extra map[string]any `json:"-"`
}

// Validate reports the first rule the request breaks, as a *ValidationError. Speak calls it
// before sending anything.
func (r *SpeechRequest) Validate() error {
	if strings.TrimSpace(r.Input) == "" {
		return invalid("Input", "the text to speak is required")
	}
	switch r.ResponseFormat {
	case "", SpeechFormatMP3, SpeechFormatOpus, SpeechFormatAAC, SpeechFormatFLAC, SpeechFormatWAV, SpeechFormatPCM:
	default:
		return invalid("ResponseFormat", "%q is not one of mp3, opus, aac, flac, wav, pcm", r.ResponseFormat)
	}
	if v := r.Speed; v != nil && !(*v >= 0.25 && *v <= 4) {
		return invalid("Speed", "%v is outside 0.25 to 4.0", *v)
	}
	return checkExtra(r.Extra, reflect.TypeFor[wireSpeechRequest]())
}

// The voice and format are always sent, so that the audio's format is known whatever the gateway's
// defaults become.
type wireSpeechRequest struct {
	Input          string       `json:"input"`
	Model          string       `json:"model,omitempty"`
	Voice          string       `json:"voice"`
	ResponseFormat SpeechFormat `json:"response_format"`
	Speed          *float64     `json:"speed,omitempty"`
	SessionID      string       `json:"session_id,omitempty"`
}

// Speak turns text into spoken audio and returns the audio as it arrives: the body is streamed,
// never held in memory, so it can be played or saved while the rest is still being generated. The
// caller must Close it. Reading it fails if the connection breaks before the audio is complete.
// Like a stream, it is bounded by WithStreamTimeouts (the wait for the first bytes and every
// silence after) and by ctx, not by WithTimeout. Errors before the audio starts are *APIError,
// including a JSON error body sent with a successful status.
//
// POST /api/v1/audio/speech
func (s *AudioService) Speak(ctx context.Context, req SpeechRequest, opts ...Option) (io.ReadCloser, error) {
	c, err := s.configure(req, opts)
	if err != nil {
		return nil, err
	}
	return c.speech(ctx, req)
}

// configure validates a speech request and returns the configuration its call runs with.
func (s *AudioService) configure(req SpeechRequest, opts []Option) (*config, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return s.client.configure(opts)
}

// speech sends a validated request and returns the audio as it arrives.
func (c *config) speech(ctx context.Context, req SpeechRequest) (io.ReadCloser, error) {
	wire := wireSpeechRequest{Input: req.Input, Model: req.Model, Voice: req.Voice,
		ResponseFormat: req.ResponseFormat, Speed: req.Speed, SessionID: c.sessionFor(req.SessionID)}
	if wire.Voice == "" {
		wire.Voice = DefaultVoice
	}
	if wire.ResponseFormat == "" {
		wire.ResponseFormat = SpeechFormatMP3
	}
	body, err := json.Marshal(wire)
	if err != nil {
		return nil, errorf("infergate: encoding speech request: %w", err)
	}
	if body, err = mergeExtra(body, req.Extra); err != nil {
		return nil, err
	}
	r := route{op: OperationSpeech, method: http.MethodPost, path: "/audio/speech", body: body,
		contentType: "application/json", accept: "audio/*, application/json;q=0.5", model: req.Model}
	if c.observed() {
		r.request = Ptr(req)
	}
	call, err := c.open(ctx, &r)
	if err != nil {
		return nil, err
	}
	audio, isJSON := sniffJSON(call.resp.Header, call.body)
	if isJSON {
		err := c.notAudio(call.resp, audio)
		call.body.Close()
		call.release()
		call.obs.end(nil, err)
		return nil, err
	}
	return &speechBody{r: audio, call: call}, nil
}

// sniffJSON tells a JSON answer from audio: by its Content-Type, or, when that does not say audio,
// by a first character of "{", which no audio format starts with. It reads only until the first
// byte that is not white space has arrived, so that audio streamed a few bytes at a time is handed
// on at once. It returns the body to read on.
func sniffJSON(header http.Header, body io.Reader) (io.Reader, bool) {
	mediaType, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	switch {
	case mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"):
		return body, true
	case strings.HasPrefix(mediaType, "audio/"):
		return body, false
	}
	var head []byte
	buf := make([]byte, 512)
	for len(head) < 64<<10 {
		n, err := body.Read(buf)
		head = append(head, buf[:n]...)
		if trimmed := bytes.TrimLeft(head, " \t\r\n"); len(trimmed) > 0 {
			return io.MultiReader(bytes.NewReader(head), body), trimmed[0] == '{'
		}
		if err != nil {
			break
		}
	}
	return io.MultiReader(bytes.NewReader(head), body), false
}

// SpeakTo writes the spoken text to w as it arrives and returns the number of bytes written. As it
// reads the whole audio, WithTimeout bounds it too, besides the stream timeouts.
//
// POST /api/v1/audio/speech
func (s *AudioService) SpeakTo(ctx context.Context, w io.Writer, req SpeechRequest, opts ...Option) (int64, error) {
	c, err := s.configure(req, opts)
	if err != nil {
		return 0, err
	}
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	audio, err := c.speech(ctx, req)
	if err != nil {
		return 0, timedOut(ctx, err)
	}
	defer audio.Close()
	n, err := io.Copy(w, audio)
	err = timedOut(ctx, err)
	if err != nil {
		return n, errorf("infergate: receiving speech: %w", err)
	}
	return n, nil
}

// SpeakToFile writes the spoken text to the file at path, replacing it. A failed call leaves no
// partial file behind. Like SpeakTo, it is bounded by WithTimeout and the stream timeouts.
//
// POST /api/v1/audio/speech
func (s *AudioService) SpeakToFile(ctx context.Context, path string, req SpeechRequest, opts ...Option) error {
	c, err := s.configure(req, opts)
	if err != nil {
		return err
	}
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	audio, err := c.speech(ctx, req)
	if err != nil {
		return timedOut(ctx, err)
	}
	defer audio.Close()
	f, err := os.Create(path)
	if err != nil {
		return errorf("infergate: saving speech: %w", err)
	}
	_, err = io.Copy(f, audio)
	err = timedOut(ctx, err)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		_ = os.Remove(path)
		return errorf("infergate: saving speech: %w", err)
	}
	return nil
}

// notAudio turns a JSON answer where audio was expected into an *APIError: the gateway's error
// envelope when it is one, else a description of the surprise.
func (c *config) notAudio(resp *http.Response, body io.Reader) error {
	raw, err := io.ReadAll(io.LimitReader(body, maxResponseBody))
	if err != nil {
		return errorf("infergate: reading speech response: %w", err)
	}
	apiErr := c.newAPIError(resp.StatusCode, resp.Header, raw)
	if _, ok := decodeEnvelope(raw); !ok {
		apiErr.Message = "expected audio, got a JSON answer: " + apiErr.Message
	}
	return apiErr
}

// speechBody is the audio stream; closing it also ends the call.
type speechBody struct {
	r    io.Reader // the body, behind what sniffing read of it
	call *openCall
}

func (b *speechBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	switch {
	case errors.Is(err, io.EOF):
		b.call.obs.end(nil, nil)
	case err != nil:
		if cause := context.Cause(b.call.ctx); errors.Is(cause, ErrStreamTimeout) {
			err = cause
		}
		err = errorf("infergate: speech stream broke off: %w", err)
		b.call.obs.end(nil, err)
	}
	return n, err
}

func (b *speechBody) Close() error {
	err := b.call.body.Close()
	b.call.obs.end(nil, context.Canceled)
	b.call.release()
	return err
}
