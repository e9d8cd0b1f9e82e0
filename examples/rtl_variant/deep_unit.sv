// deep_unit: the platform's vector unit (share/kernbench/rtl/vector_unit.sv)
// with two more register stages on its result path: the same interface and
// numerics, a five-stage pipeline instead of three. The extra stages stall
// with the output (out_valid && !out_ready), like the unit's own.
module deep_unit #(
    parameter int LANES = 64
) (
    input  logic                clk,
    input  logic                rst,
    input  logic                in_valid,
    output logic                in_ready,
    input  logic [         2:0] in_op,
    input  logic [LANES*32-1:0] in_a,
    input  logic [LANES*32-1:0] in_b,
    output logic                out_valid,
    input  logic                out_ready,
    output logic [LANES*32-1:0] out_y
);
  logic en, core_valid, v1, v2;
  logic [LANES*32-1:0] core_y, y1, y2;
  assign en = !(v2 && !out_ready);

  vector_unit #(.LANES(LANES)) core (
      .clk(clk), .rst(rst), .in_valid(in_valid), .in_ready(in_ready), .in_op(in_op),
      .in_a(in_a), .in_b(in_b), .out_valid(core_valid), .out_ready(en), .out_y(core_y));

  always_ff @(posedge clk) begin
    if (rst) begin
      v1 <= 1'b0;
      v2 <= 1'b0;
    end else if (en) begin
      v1 <= core_valid;
      v2 <= v1;
    end
    if (en) begin
      y1 <= core_y;
      y2 <= y1;
    end
  end
  assign out_valid = v2;
  assign out_y = y2;
endmodule
