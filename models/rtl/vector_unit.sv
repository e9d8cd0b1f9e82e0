// vector_unit: the RTL PE_MATH datapath for co-simulation (models/rtl/pe_math_rtl.h).
//
// A synthesizable, fully pipelined IEEE-754 binary32 vector unit of LANES
// lanes. One beat = one opcode and LANES element pairs (a, b); it produces
// LANES results.
//
// Interface (all synchronous to the rising edge of clk):
//   rst        synchronous, active high: empties the pipeline
//   in_valid / in_ready / in_op / in_a / in_b     input stream (a beat moves
//              on a rising edge where in_valid && in_ready)
//   out_valid / out_ready / out_y                  result stream
// Lane i of a bus is bits [32*i +: 32].
//
// Opcodes (in_op):
//   0 ADD   a + b        1 SUB  a - b        2 MUL  a * b
//   3 MAX   (a < b) ? b : a, NaN if either is NaN (canonical quiet NaN)
//   4 RELU  NaN ? a : (a < 0 ? +0 : a)   (b ignored; relu(-0) = -0)
//   5 COPY  a            6, 7 reserved: canonical quiet NaN
//
// Numerics: round to nearest, ties to even. Subnormal inputs and outputs are
// implemented (no flush to zero), so ADD, SUB and MUL are correctly rounded
// and bit-exact against an IEEE host. Overflow gives +/-inf. A NaN result is
// the canonical quiet NaN 0x7fc00000, except RELU and COPY, which pass their
// input through bit for bit. MAX and RELU follow the C++ std::max(a, b)
// semantics of the TLM model (models/math/math_eval.cpp): max(-0, +0) = -0,
// max(+0, -0) = +0.
//
// Pipeline: three register stages, one beat per cycle.
//   S1  unpack, special cases, exponent compare, alignment shift with sticky
//       and the 50-bit significand add/subtract, or the 24x24 multiply
//   S2  normalise: leading-zero count and shift, or the subnormal right shift
//   S3  round to nearest even, pack, overflow to infinity (= out_y)
// A beat accepted on rising edge k is on out_y with out_valid high after edge
// k+2 and leaves on edge k+3 (when out_ready is high): latency 3 cycles, so a
// stream of N beats takes N + 3 rising edges from its first beat offered to
// its last result taken. The pipeline stalls as a whole while out_valid is
// high and out_ready is low (in_ready = !(out_valid && !out_ready)).

module vector_unit #(
    parameter int LANES = 64
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  in_valid,
    output logic                  in_ready,
    input  logic [           2:0] in_op,
    input  logic [LANES*32-1:0]   in_a,
    input  logic [LANES*32-1:0]   in_b,
    output logic                  out_valid,
    input  logic                  out_ready,
    output logic [LANES*32-1:0]   out_y
);

  localparam logic [2:0] OP_ADD = 3'd0, OP_SUB = 3'd1, OP_MUL = 3'd2, OP_MAX = 3'd3,
                         OP_RELU = 3'd4, OP_COPY = 3'd5;
  localparam logic [31:0] QNAN = 32'h7fc00000;

  // An unrounded result: value = m * 2^(e - 127 - 48) (bit 48 of m is the
  // units bit when e is a normal biased exponent), or a finished bit pattern.
  typedef struct packed {
    logic               bypass;  // y is final (special case, MAX, RELU, COPY)
    logic [31:0]        y;
    logic               sign;
    logic signed [11:0] e;
    logic [49:0]        m;
  } mid_t;

  // The sign bit is unused by these helpers.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic is_nan(input logic [31:0] x);
    return x[30:23] == 8'hff && x[22:0] != 23'd0;
  endfunction
  function automatic logic is_inf(input logic [31:0] x);
    return x[30:23] == 8'hff && x[22:0] == 23'd0;
  endfunction
  function automatic logic is_zero(input logic [31:0] x);
    return x[30:0] == 31'd0;
  endfunction
  // Significand with the hidden bit (0 for a subnormal).
  function automatic logic [23:0] sig(input logic [31:0] x);
    return {x[30:23] != 8'd0, x[22:0]};
  endfunction
  // Effective biased exponent (a subnormal has exponent 1 and no hidden bit).
  function automatic logic signed [11:0] bexp(input logic [31:0] x);
    return (x[30:23] == 8'd0) ? 12'sd1 : $signed({4'd0, x[30:23]});
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  // IEEE a < b for non-NaN a, b (-0 == +0).
  function automatic logic flt(input logic [31:0] a, input logic [31:0] b);
    if (is_zero(a) && is_zero(b)) return 1'b0;
    if (a[31] != b[31]) return a[31];
    if (!a[31]) return a[30:0] < b[30:0];
    return a[30:0] > b[30:0];
  endfunction
  function automatic mid_t bypass(input logic [31:0] y);
    mid_t r = '0;
    r.bypass = 1'b1;
    r.y = y;
    return r;
  endfunction

  // S1: special cases and the exact (or sticky-rounded) significand.
  function automatic mid_t stage1(input logic [2:0] op, input logic [31:0] a,
                                  input logic [31:0] b_in);
    mid_t r = '0;
    logic [31:0] b, bg, lt;
    logic [11:0] d;
    logic [49:0] mb, ms, lost, al;
    logic [47:0] p;
    b = b_in;
    case (op)
      OP_ADD, OP_SUB: begin
        if (op == OP_SUB) b[31] = ~b_in[31];
        if (is_nan(a) || is_nan(b) || (is_inf(a) && is_inf(b) && a[31] != b[31]))
          r = bypass(QNAN);
        else if (is_inf(a)) r = bypass(a);
        else if (is_inf(b)) r = bypass(b);
        else begin
          // Finite: order by magnitude (the bit patterns order like magnitudes).
          if (a[30:0] >= b[30:0]) begin
            bg = a;
            lt = b;
          end else begin
            bg = b;
            lt = a;
          end
          d = 12'(bexp(bg) - bexp(lt));  // 0..253
          mb = {1'b0, sig(bg), 25'd0};
          ms = {1'b0, sig(lt), 25'd0};
          // Alignment: shift the smaller right by d; the bits shifted out
          // collapse into a sticky bit 0 (exact for round to nearest even).
          lost = (d >= 12'd50) ? ms : (ms << (12'd50 - d));
          al = ((d >= 12'd50) ? 50'd0 : (ms >> d)) | {49'd0, lost != 50'd0};
          r.m = (bg[31] == lt[31]) ? mb + al : mb - al;
          r.e = bexp(bg);
          // An exact zero sum is +0 unless both addends are -0.
          r.sign = (r.m == 50'd0) ? (a[31] & b[31]) : bg[31];
        end
      end
      OP_MUL: begin
        if (is_nan(a) || is_nan(b) || (is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b)))
          r = bypass(QNAN);
        else if (is_inf(a) || is_inf(b)) r = bypass({a[31] ^ b[31], 8'hff, 23'd0});
        else begin
          p = sig(a) * sig(b);  // exact 48-bit product
          r.m = {p, 2'b00};
          r.e = bexp(a) + bexp(b) - 12'sd127;
          r.sign = a[31] ^ b[31];
        end
      end
      OP_MAX: r = (is_nan(a) || is_nan(b)) ? bypass(QNAN) : bypass(flt(a, b) ? b : a);
      OP_RELU: r = bypass((!is_nan(a) && a[31] && !is_zero(a)) ? 32'd0 : a);
      OP_COPY: r = bypass(a);
      default: r = bypass(QNAN);
    endcase
    return r;
  endfunction

  // S2: put the leading one on bit 48, or shift right to the subnormal
  // exponent 1 collecting a sticky bit.
  function automatic mid_t stage2(input mid_t x);
    mid_t r = x;
    logic [5:0] lz;
    logic [11:0] sh;
    logic [49:0] lost;
    if (!x.bypass && x.m != 50'd0) begin
      if (r.m[49]) begin
        r.m = {1'b0, r.m[49:2], r.m[1] | r.m[0]};
        r.e = r.e + 12'sd1;
      end
      lz = 6'd48;
      for (int i = 0; i <= 48; i++)
        if (r.m[i]) lz = 6'(48 - i);
      if (r.e - $signed({6'd0, lz}) >= 12'sd1) begin
        r.m = r.m << lz;
        r.e = r.e - $signed({6'd0, lz});
      end else if (r.e >= 12'sd1) begin
        r.m = r.m << (r.e - 12'sd1);
        r.e = 12'sd1;
      end else begin
        sh = 12'(12'sd1 - r.e);
        lost = (sh >= 12'd50) ? r.m : (r.m << (12'd50 - sh));
        r.m = ((sh >= 12'd50) ? 50'd0 : (r.m >> sh)) | {49'd0, lost != 50'd0};
        r.e = 12'sd1;
      end
    end
    return r;
  endfunction

  // S3: round to nearest even and pack.
  function automatic logic [31:0] stage3(input mid_t x);
    logic [24:0] mr;
    logic signed [11:0] e;
    logic g, st;
    if (x.bypass) return x.y;
    if (x.m == 50'd0) return {x.sign, 31'd0};
    g = x.m[24];
    st = x.m[23:0] != 24'd0;
    mr = {1'b0, x.m[48:25]} + {24'd0, g & (st | x.m[25])};
    e = x.e;
    if (mr[24]) begin
      mr = mr >> 1;
      e = e + 12'sd1;
    end
    if (e >= 12'sd255) return {x.sign, 8'hff, 23'd0};
    return {x.sign, mr[23] ? e[7:0] : 8'd0, mr[22:0]};
  endfunction

  // ---- pipeline control: one valid bit per stage, one global enable ----
  logic v1, v2, v3;
  wire en = !(v3 && !out_ready);

  assign in_ready = en && !rst;
  assign out_valid = v3;

  // ---- datapath: LANES identical lanes, S1 -> S2 -> S3 (= out_y) ----
  // Data registers carry no reset (the valid bits qualify them). The lanes
  // are a procedural loop rather than a generate block so that the verilated
  // model keeps one copy of the lane logic (built with --unroll-count 4).
  localparam int MW = $bits(mid_t);
  logic [LANES*MW-1:0] s1, s2, s1_d, s2_d;
  logic [LANES*32-1:0] y_d;

  always_comb begin
    for (int i = 0; i < LANES; i++) begin
      s1_d[MW*i+:MW] = stage1(in_op, in_a[32*i+:32], in_b[32*i+:32]);
      s2_d[MW*i+:MW] = stage2(s1[MW*i+:MW]);
      y_d[32*i+:32]  = stage3(s2[MW*i+:MW]);
    end
  end

  always_ff @(posedge clk) begin
    if (en) begin
      s1    <= s1_d;
      s2    <= s2_d;
      out_y <= y_d;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      v1 <= 1'b0;
      v2 <= 1'b0;
      v3 <= 1'b0;
    end else if (en) begin
      v1 <= in_valid;
      v2 <= v1;
      v3 <= v2;
    end
  end

endmodule
