#include "platform/llm/model_spec.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>

#include "models/common/errors.h"
#include "platform/config/embedded_files.h"
#include "platform/util/input_file.h"
#include "platform/util/spelling.h"

namespace kb {

namespace {

// Dimensions are bounded so that every product the mapping forms (weights
// of a layer, KV cache of a context) fits in 64 bits.
constexpr int64_t kMaxDim = int64_t{1} << 24;

std::string embedded_path(const std::string& name) {
  return "topologies/llm/" + name + ".yaml";
}

// One field's value as text with where it came from.
struct Value {
  std::string text;
  std::string where;  // "file:line:col: key: " or "--param model.key=value: "
};

int64_t positive_integer(const Value& v, const std::string& key, int64_t max) {
  const std::string range = " out of range [1, " + std::to_string(max) + "]";
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v.text, &used);
  } catch (const std::out_of_range&) {
    throw ConfigError(v.where + key + " = " + v.text + " is" + range);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.text.size())
    throw ConfigError(v.where + "'" + v.text + "' is not an integer");
  if (n <= 0) throw ConfigError(v.where + key + " must be > 0, got " + v.text);
  if (n > max) throw ConfigError(v.where + key + " = " + v.text + " is" + range);
  return n;
}

// A real number in [lo, hi]: the range keeps the reference model's arithmetic
// finite and meaningful.
double number_within(const Value& v, const std::string& key, double lo, double hi) {
  char range[64];
  std::snprintf(range, sizeof range, " out of range [%g, %g]", lo, hi);
  for (char* e = std::strstr(range, "e+"); e; e = std::strstr(e, "e+"))  // 1e+12 -> 1e12
    std::memmove(e + 1, e + 2, std::strlen(e + 2) + 1);
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(v.text, &used);
  } catch (const std::out_of_range&) {  // past a double, or below its smallest normal value
    throw ConfigError(v.where + key + " = " + v.text + " is" + range);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.text.size() || !std::isfinite(x))
    throw ConfigError(v.where + "'" + v.text + "' is not a number");
  if (x <= 0) throw ConfigError(v.where + key + " must be > 0, got " + v.text);
  if (x < lo || x > hi) throw ConfigError(v.where + key + " = " + v.text + " is" + range);
  return x;
}

std::string mark(const std::string& source, const YAML::Mark& m) {
  if (m.is_null()) return source + ": ";
  return source + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

std::map<std::string, Value> read_yaml(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(mark(source, e.mark) + "YAML syntax error: " +
                      yaml_error_message(e.msg, text, e.mark.line, e.mark.column));
  }
  if (!root.IsMap())
    throw ConfigError(mark(source, root.Mark()) +
                      "a model spec is a mapping of fields (name, layers, hidden, ...)");
  std::map<std::string, Value> out;
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const std::string at = mark(source, kv.first.Mark());
    const auto& fields = model_spec_fields();
    if (std::find(fields.begin(), fields.end(), key) == fields.end()) {
      const std::string near = nearest_spelling(key, fields);
      throw ConfigError(at + key + ": unknown field" +
                        (near.empty() ? "" : " (did you mean '" + near + "'?)"));
    }
    if (out.count(key)) throw ConfigError(at + key + ": given twice");
    if (!kv.second.IsScalar())
      throw ConfigError(mark(source, kv.second.Mark()) + key + ": expected a single value");
    out[key] = {kv.second.Scalar(), mark(source, kv.second.Mark()) + key + ": "};
  }
  return out;
}

}  // namespace

const std::vector<std::string>& model_spec_fields() {
  static const std::vector<std::string> f = {"name",     "layers",     "hidden", "heads",
                                             "kv_heads", "d_head",     "ffn",    "vocab",
                                             "norm_eps", "rope_theta", "dtype"};
  return f;
}

std::vector<std::string> builtin_model_names() {
  return {"llama3_70b", "llama3_8b"};
}

int64_t ModelSpec::layer_params() const {
  return hidden * (q_width() + 2 * kv_width())  // QKV
         + q_width() * hidden                   // O
         + 3 * hidden * ffn                     // gate, up, down
         + 2 * hidden;                          // the two RMSNorm weights
}

int64_t ModelSpec::model_params() const {
  return layers * layer_params() + hidden /* final norm */ + hidden * vocab /* LM head */;
}

ModelSpec load_model_spec(const std::string& name_or_path,
                          const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::string text, source;
  if (const std::string* t = embedded_file(embedded_path(name_or_path))) {
    text = *t;
    source = embedded_path(name_or_path) + " (embedded)";
  } else if (name_or_path.find('/') != std::string::npos ||
             name_or_path.find(".yaml") != std::string::npos) {
    text = read_input_file(name_or_path, "model spec");
    source = name_or_path;
  } else {
    const std::string near = nearest_spelling(name_or_path, builtin_model_names());
    throw UsageError("--param model=" + name_or_path +
                     ": no such model (the shipped ones: " + "llama3_70b, llama3_8b" +
                     (near.empty() ? "" : "; did you mean '" + near + "'?") +
                     "), and not a YAML file path");
  }
  std::map<std::string, Value> v = read_yaml(text, source);
  for (const auto& [key, value] : overrides) {
    const auto& fields = model_spec_fields();
    const std::string where = "--param model." + key + "=" + value + ": ";
    if (std::find(fields.begin(), fields.end(), key) == fields.end()) {
      const std::string near = nearest_spelling(key, fields);
      throw UsageError(where + "unknown model field" +
                       (near.empty() ? "" : " (did you mean 'model." + near + "'?)"));
    }
    v[key] = {value, where};
  }
  for (const std::string& f : model_spec_fields())
    if (!v.count(f)) throw ConfigError(source + ": the field '" + f + "' is missing");

  ModelSpec s;
  s.source = source;
  s.name = v["name"].text;
  s.layers = positive_integer(v["layers"], "layers", 1 << 16);
  s.hidden = positive_integer(v["hidden"], "hidden", kMaxDim);
  s.heads = positive_integer(v["heads"], "heads", 1 << 16);
  s.kv_heads = positive_integer(v["kv_heads"], "kv_heads", 1 << 16);
  s.d_head = positive_integer(v["d_head"], "d_head", 1 << 16);
  s.ffn = positive_integer(v["ffn"], "ffn", kMaxDim);
  s.vocab = positive_integer(v["vocab"], "vocab", kMaxDim);
  s.norm_eps = number_within(v["norm_eps"], "norm_eps", 1e-12, 0.1);
  s.rope_theta = number_within(v["rope_theta"], "rope_theta", 1, 1e12);
  const Value& dt = v["dtype"];
  if (dt.text == "fp16")
    s.dtype = DType::kFp16;
  else if (dt.text == "bf16")
    s.dtype = DType::kBf16;
  else
    throw ConfigError(dt.where + "'" + dt.text + "': expected fp16 or bf16");
  if (s.heads % s.kv_heads != 0)
    throw ConfigError(v["heads"].where + "heads = " + std::to_string(s.heads) +
                      " is not a multiple of kv_heads = " + std::to_string(s.kv_heads) +
                      " (grouped-query attention shares each KV head among heads/kv_heads)");
  if (s.d_head % 2 != 0)
    throw ConfigError(v["d_head"].where + "d_head = " + std::to_string(s.d_head) +
                      " is odd; rotary embeddings rotate pairs of dimensions");
  return s;
}

}  // namespace kb
