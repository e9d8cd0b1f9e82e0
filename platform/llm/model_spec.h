// A transformer model's shapes (Llama family): what the llm bench maps onto
// the platform. Specs are YAML (topologies/llm/*.yaml, the shipped ones
// embedded in the binary); every field can be overridden from the command
// line, so any shape can be tried without writing a file.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/commands/tensor_handle.h"

namespace kb {

struct ModelSpec {
  std::string name;
  std::string source;  // where it came from (file, or the embedded path)
  int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, d_head = 0, ffn = 0, vocab = 0;
  double norm_eps = 1e-5, rope_theta = 10000;
  DType dtype = DType::kFp16;  // weights, KV cache, activations between kernels

  int64_t group() const { return heads / kv_heads; }  // query heads per KV head
  int64_t q_width() const { return heads * d_head; }
  int64_t kv_width() const { return kv_heads * d_head; }
  // Parameters (weights) of one layer and of the whole model, in elements.
  int64_t layer_params() const;
  int64_t model_params() const;
};

// The shipped specs: "llama3_70b", "llama3_8b".
std::vector<std::string> builtin_model_names();

// `name_or_path`: a shipped spec's name, or a YAML file. `overrides` are
// (field, value) pairs applied over it before validation. Throws ConfigError
// for the file ("file:line:column: key: message", the nearest valid key for
// an unknown one) and UsageError for an override ("--param model.KEY=VALUE:
// ..."), or for a spec that is not a model (zero or negative dimensions,
// heads not a multiple of kv_heads, an odd d_head for rotary embeddings).
ModelSpec load_model_spec(const std::string& name_or_path,
                          const std::vector<std::pair<std::string, std::string>>& overrides = {});

// The fields a spec (and --param model.FIELD) may set, in file order.
const std::vector<std::string>& model_spec_fields();

}  // namespace kb
