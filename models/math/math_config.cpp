#include "models/math/math_config.h"

namespace kb {

const char* to_string(MathImpl m) {
  switch (m) {
    case MathImpl::kTlm:
      return "tlm";
    case MathImpl::kRtl:
      return "rtl";
    case MathImpl::kScoreboard:
      return "scoreboard";
  }
  return "?";
}

}  // namespace kb
