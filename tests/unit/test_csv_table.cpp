// The points as a CSV table (--csv): columns, flattening and quoting.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "platform/output/csv_table.h"

namespace kb {
namespace {

TEST(CsvTable, AColumnPerKeyNestedObjectsFlattenedAndCellsQuoted) {
  const nlohmann::json points = nlohmann::json::parse(R"([
    {"algo": "ring", "bytes": 4096, "model": {"alpha_ns": 5.5, "beta": 2}, "ok": true},
    {"algo": "a,b \"c\"", "skipped": null, "extra": "x"}
  ])");
  EXPECT_EQ(points_csv(points),
            "algo,bytes,model.alpha_ns,model.beta,ok,extra,skipped\n"
            "ring,4096,5.5,2,true,,\n"
            "\"a,b \"\"c\"\"\",,,,,x,\n");
}

// One figure per cell: lists and maps keyed by module path stay in the JSON.
TEST(CsvTable, ListsAndPerModuleMapsAreLeftOut) {
  const nlohmann::json points = nlohmann::json::parse(R"([
    {"latency_ns": 5, "phases": [1, 2],
     "window": {"start_ns": 0, "cmd_ids": {"system.sip0.cube0.pe0": [1, 2]},
                "stats": {"system.sip0.cube0.pe0.dma.bursts": 3}},
     "energy": {"by_class": {"dma": {"dynamic_pj": 1.5}}}}
  ])");
  EXPECT_EQ(points_csv(points),
            "energy.by_class.dma.dynamic_pj,latency_ns,window.start_ns\n"
            "1.5,5,0\n");
}

TEST(CsvTable, NoPointsIsAnEmptyHeader) {
  EXPECT_EQ(points_csv(nlohmann::json::array()), "\n");
}

TEST(CsvTable, AFurtherTableGoesBesideTheFileWithItsNameBeforeTheExtension) {
  EXPECT_EQ(csv_table_path("out/run.csv", "phases"), "out/run.phases.csv");
  EXPECT_EQ(csv_table_path("run", "phases"), "run.phases");
  EXPECT_EQ(csv_table_path("a.b/run", "op_classes"), "a.b/run.op_classes");
  EXPECT_EQ(csv_table_path(".hidden", "phases"), ".hidden.phases");
}

}  // namespace
}  // namespace kb
