package gatewaytest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
)

// speechTypes maps each speech format to the Content-Type the fake sends.
var speechTypes = map[string]string{
	"mp3": "audio/mpeg", "opus": "audio/ogg", "aac": "audio/aac",
	"flac": "audio/flac", "wav": "audio/wav", "pcm": "audio/pcm",
}

// DefaultSpeechModel is the text-to-speech model of the default catalogue, and
// the deployed gateway's default.
const DefaultSpeechModel = "tts-kokoro"

// DefaultTranscriptionModel is the speech-to-text model of the default
// catalogue.
const DefaultTranscriptionModel = "whisper-v3-large-turbo"

// speechRate is the sample rate of the fake's speech, OpenAI's for pcm.
const speechRate = 24000

func (s *Server) handleSpeech(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input          *string `json:"input"`
		Model          string  `json:"model"`
		Voice          string  `json:"voice"`
		ResponseFormat string  `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		validation(w, "json_invalid", []any{"body"}, "JSON decode error", nil)
		return
	}
	if req.Input == nil {
		validation(w, "missing", []any{"body", "input"}, "Field required", nil)
		return
	}
	format := req.ResponseFormat
	if format == "" {
		format = "mp3"
	}
	contentType, ok := speechTypes[format]
	if !ok {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"message": "Unsupported response_format: " + format, "type": "proxy_error"}})
		return
	}
	model := req.Model
	if model == "" {
		model = s.catalog.defaultFor(speechUse)
	}
	s.bill(r, model, "/v1/audio/speech", len(*req.Input), 0)
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", `attachment; filename="speech.`+format+`"`)
	_, _ = w.Write(SpeechAudio(format))
}

// SpeechAudio returns the small, valid audio the fake answers a speech request
// with in format (mp3, opus, aac, flac, wav or pcm): a quarter-second 440 Hz
// tone for wav and pcm (24 kHz, 16-bit, mono), silence in the compressed
// formats, and nil for an unknown format.
func SpeechAudio(format string) []byte {
	switch format {
	case "pcm":
		return tone()
	case "wav":
		return wavFile(tone())
	case "mp3":
		return mp3Silence()
	case "flac":
		return flacEmpty()
	case "opus":
		return oggOpusSilence()
	case "aac":
		return adtsSilence()
	}
	return nil
}

// tone is a quarter second of a 440 Hz sine, 16-bit little-endian samples.
func tone() []byte {
	samples := make([]int16, speechRate/4)
	for i := range samples {
		samples[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/speechRate))
	}
	var buf bytes.Buffer
	_ = binary.Write(&buf, binary.LittleEndian, samples)
	return buf.Bytes()
}

// wavFile wraps mono 16-bit samples in a RIFF/WAVE header.
func wavFile(pcm []byte) []byte {
	var buf bytes.Buffer
	le := func(v any) { _ = binary.Write(&buf, binary.LittleEndian, v) }
	buf.WriteString("RIFF")
	le(uint32(36 + len(pcm)))
	buf.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(1)) // PCM
	le(uint16(1)) // mono
	le(uint32(speechRate))
	le(uint32(speechRate * 2))
	le(uint16(2))
	le(uint16(16))
	buf.WriteString("data")
	le(uint32(len(pcm)))
	buf.Write(pcm)
	return buf.Bytes()
}

// mp3Silence is ten MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz, mono)
// whose all-zero side information codes silence.
func mp3Silence() []byte {
	const frameLen = 144 * 128000 / 44100
	frame := make([]byte, frameLen)
	copy(frame, []byte{0xFF, 0xFB, 0x90, 0xC4})
	return bytes.Repeat(frame, 10)
}

// flacEmpty is a FLAC stream with its STREAMINFO block (24 kHz, mono, 16-bit)
// and no audio frames.
func flacEmpty() []byte {
	var buf bytes.Buffer
	buf.WriteString("fLaC")
	buf.Write([]byte{0x80, 0, 0, 34}) // the last metadata block: STREAMINFO, 34 bytes
	be := func(v any) { _ = binary.Write(&buf, binary.BigEndian, v) }
	be(uint16(4096)) // minimum block size
	be(uint16(4096)) // maximum block size
	buf.Write(make([]byte, 6))
	be(uint64(speechRate)<<44 | uint64(0)<<41 | uint64(15)<<36) // rate, channels-1, bits-1, samples
	buf.Write(make([]byte, 16))                                 // MD5 of no audio left unset
	return buf.Bytes()
}

// oggOpusSilence is an Ogg Opus file: its OpusHead and OpusTags pages, then
// one 20 ms silent packet.
func oggOpusSilence() []byte {
	var head bytes.Buffer
	head.WriteString("OpusHead")
	_ = binary.Write(&head, binary.LittleEndian, struct {
		Version, Channels uint8
		PreSkip           uint16
		Rate              uint32
		Gain              int16
		Mapping           uint8
	}{1, 1, 312, speechRate, 0, 0})
	var tags bytes.Buffer
	tags.WriteString("OpusTags")
	vendor := "gatewaytest"
	_ = binary.Write(&tags, binary.LittleEndian, uint32(len(vendor)))
	tags.WriteString(vendor)
	_ = binary.Write(&tags, binary.LittleEndian, uint32(0))
	var out bytes.Buffer
	out.Write(oggPage(0x02, 0, 0, head.Bytes()))
	out.Write(oggPage(0, 0, 1, tags.Bytes()))
	out.Write(oggPage(0x04, 312+960, 2, []byte{0xF8, 0xFF, 0xFE}))
	return out.Bytes()
}

// oggPage builds one Ogg page holding one packet shorter than 255 bytes.
func oggPage(flags byte, granule uint64, seq uint32, packet []byte) []byte {
	var p bytes.Buffer
	p.WriteString("OggS")
	p.Write([]byte{0, flags})
	_ = binary.Write(&p, binary.LittleEndian, granule)
	_ = binary.Write(&p, binary.LittleEndian, uint32(0x67617465)) // stream serial number
	_ = binary.Write(&p, binary.LittleEndian, seq)
	p.Write([]byte{0, 0, 0, 0}) // checksum, filled in below
	p.Write([]byte{1, byte(len(packet))})
	p.Write(packet)
	page := p.Bytes()
	binary.LittleEndian.PutUint32(page[22:], oggCRC(page))
	return page
}

// oggCRC is the Ogg checksum: CRC-32 with polynomial 0x04C11DB7, not
// reflected, zero initial value.
func oggCRC(b []byte) uint32 {
	var crc uint32
	for _, c := range b {
		crc ^= uint32(c) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ 0x04C11DB7
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// adtsSilence is ten ADTS frames of AAC-LC (24 kHz, mono), each a single
// channel element with no spectral data, which decodes to silence.
func adtsSilence() []byte {
	var payload bitWriter
	payload.put(0, 3)   // single channel element
	payload.put(0, 4)   // element instance tag
	payload.put(100, 8) // global gain
	payload.put(0, 1)   // ics_reserved_bit
	payload.put(0, 2)   // window sequence: long
	payload.put(0, 1)   // window shape
	payload.put(0, 6)   // max_sfb: no scale factor bands, so no spectral data
	payload.put(0, 1)   // predictor data absent
	payload.put(0, 3)   // pulse, TNS and gain control data absent
	payload.put(7, 3)   // end element
	raw := payload.bytes()

	var header bitWriter
	header.put(0xFFF, 12) // syncword
	header.put(0, 1)      // MPEG-4
	header.put(0, 2)      // layer
	header.put(1, 1)      // no CRC
	header.put(1, 2)      // profile: AAC LC
	header.put(6, 4)      // 24 kHz
	header.put(0, 1)      // private
	header.put(1, 3)      // mono
	header.put(0, 4)      // original, home, copyright bits
	header.put(uint64(7+len(raw)), 13)
	header.put(0x7FF, 11) // variable bit rate
	header.put(0, 2)      // one raw data block
	frame := append(header.bytes(), raw...)
	return bytes.Repeat(frame, 10)
}

// bitWriter packs values most significant bit first.
type bitWriter struct {
	buf   []byte
	nbits int
}

func (w *bitWriter) put(v uint64, n int) {
	for i := n - 1; i >= 0; i-- {
		if w.nbits%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		if v>>uint(i)&1 == 1 {
			w.buf[len(w.buf)-1] |= 0x80 >> uint(w.nbits%8)
		}
		w.nbits++
	}
}

func (w *bitWriter) bytes() []byte { return w.buf }
