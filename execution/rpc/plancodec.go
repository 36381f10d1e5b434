package rpc

import (
	"bytes"
	"reflect"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// The exec_fragment request (the plan fragment, its expressions, sink and
// scan ranges) and the instance's report travel as MessagePack, not JSON.
// Why:
//   - cost: encoding and decoding the request as JSON took 15% of a point
//     query's CPU (BenchmarkPointQuery in server/; the report 4% more);
//     this form takes 6% (BenchmarkPlanCodec: 2-3x faster).
//   - size: structs go as arrays in field order (no field names), numbers
//     as compact binary: a point query's request is 243 bytes, not 999.
//   - depth: encoding/json refuses nesting past 10,000 levels; msgpack's
//     decoder has no depth limit (it recurses on the growable goroutine
//     stack), and expressions go in expr's flat binary form
//     (sql/expr/binary.go), decoded with an explicit stack.
//
// Why a library over generated protobuf or our own encoder: protoc is not
// at hand and a .proto would restate every plan struct; msgpack
// (vmihailenco/msgpack, reflection with per-type cached codecs) walks the
// plan structs themselves, by their json tags, so a field added to a plan
// struct travels without touching this file (TestPlanRoundTrip fills every
// field of every node kind). FE and backends of one cluster run one build,
// so the positional struct form needs no versioning (a struct whose field
// count differs fails to decode rather than misreading).
//
// Values (types.Datum: partition bounds, zone-map ranges) go in expr's
// binary form too, exact where JSON carried only the text mirrors.
func init() {
	msgpack.Register(fragment.Ex{}, encodeEx, decodeEx)
	msgpack.Register(types.Datum{}, encodeDatum, decodeDatum)
}

func encodeDatum(enc *msgpack.Encoder, v reflect.Value) error {
	d := v.Interface().(types.Datum)
	return enc.EncodeBytes(expr.AppendDatum(nil, &d))
}

func decodeDatum(dec *msgpack.Decoder, v reflect.Value) error {
	b, err := dec.DecodeBytes()
	if err != nil {
		return err
	}
	d, err := expr.DecodeDatum(b)
	if err != nil {
		return err
	}
	v.Set(reflect.ValueOf(d))
	return nil
}

// encodeEx writes an expression as one bin value (nil: msgpack nil).
func encodeEx(enc *msgpack.Encoder, v reflect.Value) error {
	e := v.Interface().(fragment.Ex).Expr
	if e == nil {
		return enc.EncodeNil()
	}
	b, err := expr.AppendBinary(nil, e)
	if err != nil {
		return err
	}
	return enc.EncodeBytes(b)
}

func decodeEx(dec *msgpack.Decoder, v reflect.Value) error {
	b, err := dec.DecodeBytes()
	if err != nil {
		return err
	}
	var e expr.Expr
	if b != nil {
		if e, err = expr.DecodeBinary(b); err != nil {
			return err
		}
	}
	v.Set(reflect.ValueOf(fragment.Ex{Expr: e}))
	return nil
}

// marshalPlan encodes v (a request or a plan node) in the wire form.
func marshalPlan(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.GetEncoder()
	defer msgpack.PutEncoder(enc)
	enc.Reset(&buf)
	enc.SetCustomStructTag("json")
	enc.UseArrayEncodedStructs(true)
	enc.UseCompactInts(true)
	if err := enc.Encode(v); err != nil {
		return nil, sqlerr.Assertf("encode plan: %v", err)
	}
	return buf.Bytes(), nil
}

func unmarshalPlan(b []byte, v any) error {
	dec := msgpack.GetDecoder()
	defer msgpack.PutDecoder(dec)
	dec.Reset(bytes.NewReader(b))
	dec.SetCustomStructTag("json")
	if err := dec.Decode(v); err != nil {
		return sqlerr.Assertf("decode plan: %v", err)
	}
	return nil
}

// EncodeRoot encodes a fragment's plan tree once for all its instances'
// requests (ExecFragmentReq.RootWire).
func EncodeRoot(n *fragment.Node) ([]byte, error) { return marshalPlan(n) }

// DecodeRoot decodes what EncodeRoot wrote.
func DecodeRoot(b []byte) (*fragment.Node, error) {
	var n *fragment.Node
	if err := unmarshalPlan(b, &n); err != nil {
		return nil, err
	}
	return n, nil
}

// MarshalReport encodes an instance's final report (the end of the
// exec_fragment call), in the same form: it is as much of a point query's
// cost as the request.
func MarshalReport(rep *InstanceReport) ([]byte, error) { return marshalPlan(rep) }

// UnmarshalReport decodes what MarshalReport wrote.
func UnmarshalReport(b []byte) (*InstanceReport, error) {
	var rep InstanceReport
	if err := unmarshalPlan(b, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// MarshalExecReq encodes one instance's request.
func MarshalExecReq(req *ExecFragmentReq) ([]byte, error) { return marshalPlan(req) }

// UnmarshalExecReq decodes what MarshalExecReq wrote, Root included
// (decoded from RootWire when the FE sent it pre-encoded).
func UnmarshalExecReq(b []byte) (*ExecFragmentReq, error) {
	var req ExecFragmentReq
	if err := unmarshalPlan(b, &req); err != nil {
		return nil, err
	}
	return &req, req.decodeRoot()
}

func (req *ExecFragmentReq) decodeRoot() error {
	if req.Root == nil && req.RootWire != nil {
		root, err := DecodeRoot(req.RootWire)
		if err != nil {
			return err
		}
		req.Root, req.RootWire = root, nil
	}
	return nil
}

// execBatch is an exec_fragment call's body: the instances it starts.
type execBatch struct {
	Reqs []*ExecFragmentReq `json:"reqs"`
}

// MarshalExecBatch encodes an exec_fragment call's body.
func MarshalExecBatch(reqs []*ExecFragmentReq) ([]byte, error) {
	return marshalPlan(&execBatch{Reqs: reqs})
}

// UnmarshalExecBatch decodes what MarshalExecBatch wrote, every Root
// included.
func UnmarshalExecBatch(b []byte) ([]*ExecFragmentReq, error) {
	var batch execBatch
	if err := unmarshalPlan(b, &batch); err != nil {
		return nil, err
	}
	if len(batch.Reqs) == 0 {
		return nil, sqlerr.Assertf("exec_fragment without instances")
	}
	for _, req := range batch.Reqs {
		if req == nil {
			return nil, sqlerr.Assertf("exec_fragment with an empty instance")
		}
		if err := req.decodeRoot(); err != nil {
			return nil, err
		}
	}
	return batch.Reqs, nil
}
