// Norm kernels a program adds to the llm bench: each runs every norm of the
// transformer step (each layer's two and the final one) in place of the
// built-in RMSNorm when --param norm=NAME selects it, with a double-precision
// reference that data mode checks the logits against.
//
//   kb::NormKernelDef def;
//   def.kernel = [](const kb::fw::NormCall& c) { ... };    // firmware: tl commands
//   def.reference = [](const double* x, const float* gamma, double* out,
//                      int64_t rows, int64_t hidden, double eps) { ... };
//   def.description = "LayerNorm without bias";
//   kb::register_norm_kernel("layernorm", def);          // before kernbench_main
//
// The step's norm weights are one [hidden] vector per norm (gamma); a kernel
// that needs more (a bias) makes it itself. The llm bench's analytic models
// (the roofline and the step model) keep pricing the RMSNorm. A norm kernel
// of one's own runs on whole rows: residual=auto then takes the replicated
// stream, and residual=sharded is refused.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "firmware/kernels/transformer_step.h"

namespace kb {

// The built-in norm's name (--param norm's default).
constexpr const char* kBuiltinNorm = "rmsnorm";

// out[r * hidden + i] = norm(row r of x)[i] * gamma[i], in double, for every
// row of the row-major [rows, hidden] x.
using NormReference = std::function<void(const double* x, const float* gamma, double* out,
                                         int64_t rows, int64_t hidden, double eps)>;

struct NormKernelDef {
  fw::NormKernel kernel;    // what each rank runs
  NormReference reference;  // data mode: what the logits are checked against
  std::string description;  // one line, for --list-benches and messages
};

// Adds norm kernel `name`. Throws std::invalid_argument when the name is empty
// or taken (rmsnorm, or registered before), or kernel or reference is empty;
// std::logic_error once a Platform has been built.
void register_norm_kernel(const std::string& name, NormKernelDef def);

// The registered kernel `name`; null for rmsnorm. Throws UsageError for any
// other name, with the nearest one as a suggestion and every name listed.
const NormKernelDef* norm_kernel(const std::string& name);
// rmsnorm, then the registered ones in the order they were registered.
std::vector<std::string> norm_kernel_names();

// Refuses further registrations (Platform's constructor calls it).
void close_norm_kernel_registry();

}  // namespace kb
