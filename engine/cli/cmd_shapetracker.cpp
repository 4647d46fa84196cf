// loupe-cli shapetracker: apply movement ops to a contiguous buffer and show the resulting views,
// index/valid expressions and the offset every element reads (DESIGN.md §6).
//   loupe-cli shapetracker --jsonl                 one case per input line, one answer per output line
//   loupe-cli shapetracker '{"start":[..],"ops":[..]}'   (or the object on stdin)
// Options: --no-simplify keeps the views exactly as the ops left them (no merging of neighbours).
#include <iostream>
#include <string>

#include "cli/command.h"
#include "ir/print.h"
#include "shape/shape_json.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "support/json.h"

namespace loupe::cli {

namespace {

constexpr int64_t kMaxMappingElements = int64_t(1) << 21;  // the JSON of a larger mapping gets unwieldy

json::Value run_case(const json::Value& in, bool simplify_views) {
  in.as_object("a case");
  sints start = sints_from_json(in.at("start"), "start");
  for (size_t i = 0; i < start.size(); i++)
    if (start[i].is_int() && start[i].as_int() < 0) throw Error(cat("start: negative dimension in ", shape_str(start)));
  ShapeTracker st = ShapeTracker::from_shape(start);
  const json::Array& ops = in.at("ops").as_array("ops");
  for (size_t k = 0; k < ops.size(); k++) st = apply_json_op(st, ops[k], k);
  if (simplify_views) st = st.simplify();

  json::Value out = json::Value::object();
  if (const json::Value* id = in.find("id")) out.set("id", *id);
  json::Value shape = json::Value::array();
  for (const sint& s : st.shape()) shape.push_back(sint_to_json(s));
  out.set("final_shape", shape);
  json::Value views = json::Value::array();
  for (const View& v : st.views()) views.push_back(view_to_json(v));
  out.set("views", views);
  auto [index, valid] = st.to_indexed();
  out.set("index", render_expr(index));
  out.set("valid", render_expr(valid));
  bool concrete = true;
  for (const View& v : st.views()) concrete = concrete && v.is_concrete();
  if (!concrete) {
    out.set("mapping", json::Value());
    out.set("mapping_note", "symbolic shape: no element mapping");
  } else if (st.size() > kMaxMappingElements) {
    out.set("mapping", json::Value());
    out.set("mapping_note", cat(st.size(), " elements: more than the ", kMaxMappingElements, " a mapping lists"));
  } else {
    out.set("mapping", json::Value::ints(st.mapping()));
  }
  return out;
}

// Answers one case; a failure becomes {"id", "error"} so a batch goes on.
json::Value answer(const std::string& line, bool simplify_views) {
  json::Value in;
  try {
    in = json::parse(line);
  } catch (const Error& e) {
    return json::Value(json::Object{{"id", json::Value()}, {"error", e.what()}});
  }
  json::Value id = in.find("id") ? *in.find("id") : json::Value();
  try {
    return run_case(in, simplify_views);
  } catch (const std::exception& e) {  // user errors, and internal errors reported rather than fatal
    return json::Value(json::Object{{"id", id}, {"error", e.what()}});
  }
}

int run(const Args& args) {
  bool simplify_views = !has_flag(args, "--no-simplify");
  if (has_flag(args, "--jsonl")) {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::cout << answer(line, simplify_views).dump() << "\n" << std::flush;
    }
    return 0;
  }
  std::vector<std::string> pos = positional(args, {});
  std::string text;
  if (!pos.empty()) {
    text = pos[0];
  } else {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  json::Value out = run_case(json::parse(text), simplify_views);
  std::cout << out.dump() << "\n";
  return 0;
}

const Registrar reg("shapetracker", "movement ops -> views, index/valid, element mapping (--jsonl)", run);

} // namespace

} // namespace loupe::cli
