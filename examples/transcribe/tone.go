package main

import (
	"encoding/binary"
	"math"
	"os"
)

// writeTone writes one second of a 440 Hz tone as a 16 kHz, 16-bit mono WAV file.
func writeTone(path string) error {
	const rate, seconds = 16000, 1
	samples := make([]int16, rate*seconds)
	for i := range samples {
		samples[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/rate))
	}
	dataSize := uint32(2 * len(samples))
	header := struct {
		RIFF           [4]byte
		Size           uint32
		WAVE, Fmt      [4]byte
		FmtSize        uint32
		Format         uint16 // 1: PCM
		Channels       uint16
		Rate, ByteRate uint32
		BlockAlign     uint16
		Bits           uint16
		Data           [4]byte
		DataSize       uint32
	}{
		[4]byte{'R', 'I', 'F', 'F'}, 36 + dataSize, [4]byte{'W', 'A', 'V', 'E'}, [4]byte{'f', 'm', 't', ' '},
		16, 1, 1, rate, 2 * rate, 2, 16, [4]byte{'d', 'a', 't', 'a'}, dataSize,
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = binary.Write(f, binary.LittleEndian, header)
	if err == nil {
		err = binary.Write(f, binary.LittleEndian, samples)
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}
