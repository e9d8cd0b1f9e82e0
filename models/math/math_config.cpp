#include "models/math/math_config.h"

namespace kb {

const char* to_string(MathImpl m) {
  return name_of(kMathImplNames, m);
}

}  // namespace kb
