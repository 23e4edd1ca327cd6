package promapi

import (
	"math"
	"testing"
)

func TestAMatrixAnswerGivesEachSampleAtItsMillisecond(t *testing.T) {
	body := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x","le":"+Inf"},"values":[[1700000000.999,"3"],[1700000001,"NaN"],[-1.5,"+Inf"]]}]}}`
	s, err := ParseMatrix([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 1 || s[0].Labels["le"] != "+Inf" || len(s[0].Samples) != 3 {
		t.Fatalf("got %+v", s)
	}
	got := s[0].Samples
	if got[0] != (Sample{1700000000999, 3}) || got[1].Ms != 1700000001000 || !math.IsNaN(got[1].Value) || got[2] != (Sample{-1500, math.Inf(1)}) {
		t.Fatalf("got %+v", got)
	}
}

func TestAnAnswerThatIsNoMatrixOrNoSuccessIsAnError(t *testing.T) {
	for _, body := range []string{
		`{"status":"error","errorType":"bad_data","error":"parse error"}`,
		`{"status":"success","data":{"resultType":"vector","result":[]}}`,
		`{"status":"success","warnings":["partial response"],"data":{"resultType":"matrix","result":[]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1.0001,"1"]]}]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"one"]]}]}}`,
		`<html>`,
	} {
		if _, err := ParseMatrix([]byte(body)); err == nil {
			t.Errorf("%s: no error", body)
		}
	}
}

func TestSecondsGivesTheMillisecond(t *testing.T) {
	for ms, want := range map[int64]string{1700000000999: "1700000000.999", 5: "0.005", -1500: "-1.500"} {
		if got := Seconds(ms); got != want {
			t.Errorf("Seconds(%d) = %s, want %s", ms, got, want)
		}
	}
}

func FuzzParseMatrix(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"b"},"values":[[1.5,"2"]]}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := ParseMatrix(body)
		if err != nil && s != nil {
			t.Fatal("series with an error")
		}
	})
}

func TestQuoteEscapesOnlyWhatEndsOrBreaksAString(t *testing.T) {
	for in, want := range map[string]string{`a`: `"a"`, `a"b`: `"a\"b"`, `c:\x`: `"c:\\x"`, "l\nm": `"l\nm"`, "é": `"é"`} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
