// The points as a CSV table (--csv): columns, flattening and quoting.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "platform/output/csv_table.h"

namespace kb {
namespace {

TEST(CsvTable, AColumnPerKeyNestedObjectsFlattenedAndCellsQuoted) {
  const nlohmann::json points = nlohmann::json::parse(R"([
    {"algo": "ring", "bytes": 4096, "model": {"alpha_ns": 5.5, "beta": 2}, "ok": true},
    {"algo": "a,b \"c\"", "skipped": null, "list": [1, 2], "extra": "x"}
  ])");
  EXPECT_EQ(points_csv(points),
            "algo,bytes,model.alpha_ns,model.beta,ok,extra,list,skipped\n"
            "ring,4096,5.5,2,true,,,\n"
            "\"a,b \"\"c\"\"\",,,,,x,\"[1,2]\",\n");
}

TEST(CsvTable, NoPointsIsAnEmptyHeader) {
  EXPECT_EQ(points_csv(nlohmann::json::array()), "\n");
}

}  // namespace
}  // namespace kb
