// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/report.cpp — header, ratios against the baseline, results.json (nlohmann_json) and
// terminal tables.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace devalloc_bench {

namespace {

std::string utc_stamp(const char* format)
{
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

std::string fmt_num(double v)
{
  if (!std::isfinite(v)) { return "-"; }
  char buf[32];
  const double a = std::fabs(v);
  if (a >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.3gG", v / 1e9);
  } else if (a >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3gM", v / 1e6);
  } else if (a >= 1e4) {
    std::snprintf(buf, sizeof buf, "%.3gk", v / 1e3);
  } else if (a >= 100) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else if (a >= 1) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  } else if (a == 0) {
    return "0";
  } else {
    std::snprintf(buf, sizeof buf, "%.3f", v);
  }
  return buf;
}

/// CPU backend: the record's timings are functional checks (Record field `timing`, finish_cell).
bool functional_timing(const Record& r) { return r.str("timing") == "functional"; }

/// Metrics that are timings (cycles, times, rates), as opposed to counts and fractions.
bool is_timing_metric(const std::string& metric)
{
  return metric.find("cycles") != std::string::npos || metric.find("_ms") != std::string::npos ||
         metric.find("us_per") != std::string::npos || metric.find("_per_s") != std::string::npos ||
         metric.find("gflop") != std::string::npos;
}

bool lower_is_better(const std::string& metric)
{
  return metric.find("cycles") != std::string::npos || metric.find("_ms") != std::string::npos ||
         metric.find("us_per") != std::string::npos || metric.find("frag") != std::string::npos ||
         metric.find("overhead") != std::string::npos || metric == "registers";
}

std::string identity(const Record& r)
{
  return r.str("test") + "\n" + r.str("cell") + "\n" + r.str("variant") + "\n" + r.str("sample");
}

}  // namespace

void print_header(Context& ctx, std::ostream& os)
{
  os << "devalloc-bench  backend: " << devalloc::backend_name() << "  mode: " << ctx.mode() << "\n";
  os << "  device:     " << ctx.device.name;
#if DEVALLOC_BACKEND_CUDA
  os << " (compute " << ctx.device.compute_capability << ", " << ctx.scale.sm_count << " SMs x "
     << ctx.scale.threads_per_sm << " threads = " << ctx.scale.full_threads << " resident threads, "
     << static_cast<int>(ctx.scale.clock_khz / 1000) << " MHz, " << (ctx.device.memory_bytes >> 20) << " MiB)";
#endif
  os << "\n";
  os << "  driver:     " << ctx.device.driver << "\n";
  os << "  CUDA:       runtime " << ctx.device.runtime << "\n";
  os << "  commit:     " << ctx.commit << "\n";
  os << "  allocators:\n";
  for_each_allocator(ctx, [&](auto e) {
    using E = decltype(e);
    char buf[64];
    std::snprintf(buf, sizeof buf, "    %-13s ", E::name);
    os << buf << E::allocator::info() << "\n";
  });
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "  budgets:    %.3g s per kernel, %.3g s per cell, %.3g s per test and allocator, %.4g s run (soft)\n",
                ctx.cell_budget_s(), ctx.cell_total_budget_s(), ctx.pair_budget_s(), ctx.run_budget_s());
  os << buf;
#if DEVALLOC_BACKEND_CUDA
  os << "  CUDA malloc heap of this process: " << bytes_label(ctx.main_heap)
     << " (cells that need another size run in a child process)\n";
#else
  os << "  note:       CPU backend: workers run on "
     << (ctx.opt.cpu_threads != 0 ? std::to_string(ctx.opt.cpu_threads) : std::string("2 x hardware"))
     << " std::threads per launch; 'a full GPU' is " << ctx.scale.full_threads << " workers, at most "
     << ctx.scale.max_threads << " per launch, heaps at most " << bytes_label(ctx.scale.max_heap) << "; cycles are "
     << cycle_source() << " ticks. Figures are labelled backend=cpu and are not GPU results.\n"
     << "  timing:     CPU timings are functional checks, not rankings (record field timing: \"functional\"),\n"
     << "              unless a cell's timed spans last at least " << cpu_measured_span_ms
     << " ms (median; timing: \"measured\").\n";
#endif
  os << std::flush;
}

void add_baseline_ratios(Context& ctx)
{
  const std::string base = baseline_name();
  std::map<std::string, std::size_t> index;
  for (std::size_t k = 0; k < ctx.records.size(); ++k) {
    const Record& r = ctx.records[k];
    if (r.str("allocator") == base && r.str("status") == "ok") { index[identity(r)] = k; }
  }
  for (Record& r : ctx.records) {
    if (r.str("allocator") == base || r.str("status") != "ok") { continue; }
    const auto it = index.find(identity(r));
    if (it == index.end()) { continue; }
    const Record& b = ctx.records[it->second];
    const bool functional = functional_timing(r) || functional_timing(b);
    auto ratio = [&](const std::string& key, const std::string& out, bool lower_better) {
      // Timings at the timer's floor rank nothing: no ratio is derived from them (CPU backend).
      if (functional && is_timing_metric(key)) { return; }
      const double x = r.num(key), y = b.num(key);
      if (std::isfinite(x) && std::isfinite(y) && x > 0 && y > 0) { r.set(out, lower_better ? y / x : x / y); }
    };
    ratio("alloc_per_s", "alloc_per_s_vs_baseline", false);
    ratio("free_per_s", "free_per_s_vs_baseline", false);
    if (const TestInfo* t = find_test(r.str("test"))) {
      if (!t->metrics.empty()) {
        ratio(t->metrics.front(), "speedup_vs_baseline", lower_is_better(t->metrics.front()));
        r.set("speedup_metric", t->metrics.front());
      }
    }
    r.set("baseline", base);
  }
  kdtree_bump_ratios(ctx);
}

std::string prepare_output_dir(const Options& opt)
{
  std::string dir = opt.out_dir;
  if (dir.empty()) {
    dir = std::string("out/devalloc-bench-") + devalloc::backend_name() + "-" + (opt.full ? "full" : "quick") + "-" +
          utc_stamp("%Y%m%d-%H%M%S");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) { throw std::runtime_error("cannot create the output directory '" + dir + "': " + ec.message()); }
  const std::string probe = dir + "/.devalloc-bench-write-test";
  {
    std::ofstream out(probe);
    if (!out) { throw std::runtime_error("cannot write into the output directory '" + dir + "'"); }
  }
  std::remove(probe.c_str());
  return dir;
}

std::string write_outputs(Context& ctx, const std::vector<const TestInfo*>& tests, const std::string& dir)
{
  Json meta = Json::object();
  meta["tool"] = "devalloc-bench";
  meta["format_version"] = 1;
  meta["backend"] = devalloc::backend_name();
  meta["mode"] = ctx.mode();
  meta["device"] = ctx.device.name;
  meta["compute_capability"] = ctx.device.compute_capability;
  meta["driver"] = ctx.device.driver;
  meta["cuda_runtime"] = ctx.device.runtime;
  meta["commit"] = ctx.commit;
  meta["device_memory_bytes"] = ctx.device.memory_bytes;
  meta["sm_count"] = ctx.scale.sm_count;
  meta["threads_per_sm"] = ctx.scale.threads_per_sm;
  meta["full_threads"] = ctx.scale.full_threads;
  meta["max_threads"] = ctx.scale.max_threads;
  meta["max_heap_bytes"] = ctx.scale.max_heap;
  meta["clock_khz"] = ctx.scale.clock_khz;
  meta["reps"] = ctx.scale.reps;
  meta["warmups"] = ctx.scale.warmups;
  meta["cycle_source"] = cycle_source();
  meta["seed"] = ctx.opt.seed;
  meta["baseline"] = baseline_name();
  meta["cuda_malloc_heap_bytes"] = DEVALLOC_BACKEND_CUDA ? Json(ctx.main_heap) : Json(nullptr);
  meta["child_faults"] = ctx.child_faults;
  meta["cell_budget_s"] = ctx.cell_budget_s();
  meta["cell_total_budget_s"] = ctx.cell_total_budget_s();
  meta["pair_budget_s"] = ctx.pair_budget_s();
  meta["run_budget_s"] = ctx.run_budget_s();
  meta["finished_utc"] = utc_stamp("%Y-%m-%dT%H:%M:%SZ");
  meta["duration_s"] = ctx.elapsed_s();
  meta["cpu_threads_per_launch"] = ctx.opt.cpu_threads;
#if DEVALLOC_BACKEND_CPU
  meta["timing_threshold_ms"] = cpu_measured_span_ms;
#endif
  Json& allocators = meta["allocators"] = Json::array();
  for_each_allocator(ctx, [&](auto e) {
    using E = decltype(e);
    using A = typename E::allocator;
    allocators.push_back({{"name", E::name},
                          {"description", E::description},
                          {"configuration", A::info()},
                          {"alignment", A::alignment},
                          {"reuses_freed_memory", A::traits.reuses_freed_memory},
                          {"provides_available_slots", A::providesAvailableSlots},
                          {"process_wide_heap", has_process_wide_heap<E>()}});
  });
  Json& test_list = meta["tests"] = Json::array();
  for (const TestInfo* t : tests) {
    test_list.push_back({{"name", t->name}, {"source", t->source}, {"description", t->description}});
  }
  Json& cost = meta["cost_model"] = Json::array();
  for (const CostPoint& p : ctx.cost.points()) {
    cost.push_back({{"threads", p.threads}, {"size", p.size}, {"seconds", p.seconds}});
  }
  // {"meta": ..., "records": [...]}, one record per line (diffable, greppable); every value is
  // serialized by nlohmann_json.
  std::ofstream out(dir + "/results.json");
  out << "{\n\"meta\": " << dump_json(meta) << ",\n\"records\": [\n";
  for (std::size_t k = 0; k < ctx.records.size(); ++k) {
    out << "  " << dump_json(ctx.records[k].fields()) << (k + 1 < ctx.records.size() ? ",\n" : "\n");
  }
  out << "]\n}\n";
  if (!out) { throw std::runtime_error("cannot write " + dir + "/results.json"); }
  return dir;
}

void print_tables(Context& ctx, const std::vector<const TestInfo*>& tests, std::ostream& os)
{
  std::vector<std::string> allocators;
  for_each_allocator(ctx, [&](auto e) { allocators.push_back(decltype(e)::name); });
  bool any_marks = false;
  bool any_functional = false;
#if DEVALLOC_BACKEND_CPU
  char banner[320];
  std::snprintf(
    banner, sizeof banner,
    "\n!! CPU backend: the timings below are FUNCTIONAL CHECKS, NOT RANKINGS: the code ran and every allocation\n"
    "!! was verified, but a cell whose timed spans last under %.0f ms (median) sits at the timer's floor.\n"
    "!! Such cells are marked '~' and give no ratio against the baseline. Measure on a GPU to compare.\n",
    cpu_measured_span_ms);
  os << banner;
#endif
  for (const TestInfo* t : tests) {
    const bool timed = std::any_of(t->metrics.begin(), t->metrics.end(), is_timing_metric);
    std::vector<const Record*> recs;
    bool has_summary = false;
    for (const Record& r : ctx.records) {
      if (r.str("test") == t->name && r.str("variant") == "summary") { has_summary = true; }
    }
    for (const Record& r : ctx.records) {
      if (r.str("test") != t->name || r.str("allocator") == "-") { continue; }
      if (has_summary && r.str("variant") == "sample") { continue; }
      recs.push_back(&r);
    }
    const bool test_functional =
      timed && std::any_of(recs.begin(), recs.end(), [](const Record* r) { return functional_timing(*r); });
    os << "\n== " << t->name << " (" << t->source << "): " << t->metric_label
       << (test_functional ? "  [CPU: functional check, not a ranking]" : "") << "\n";
    if (recs.empty()) {
      os << "   (no records)\n";
      continue;
    }
    // Row keys that vary.
    std::vector<std::string> keys;
    for (const auto& k : t->row_keys) {
      std::set<std::string> values;
      for (const Record* r : recs) { values.insert(r->str(k)); }
      if (values.size() > 1) { keys.push_back(k); }
    }
    std::vector<std::string> rows;
    std::map<std::string, std::map<std::string, std::string>> cells;
    std::map<std::string, std::vector<std::string>> row_values;
    // Row order: text keys in order of first appearance, numeric keys by value, so that rows
    // some allocators lack (skipped cells) still sort into place.
    std::map<std::string, std::vector<double>> row_order;
    std::map<std::string, std::map<std::string, double>> first_seen;
    for (const Record* r : recs) {
      bool any_key = false;
      for (const auto& k : keys) { any_key = any_key || !r->str(k).empty(); }
      if (!any_key) { continue; }  // a record that marks the rest of a series as skipped
      std::string row;
      std::vector<std::string> vals;
      std::vector<double> order;
      for (const auto& k : keys) {
        if (r->get(k) != nullptr && r->get(k)->is_number()) {
          order.push_back(r->num(k));
        } else {
          auto& seen = first_seen[k];
          seen.emplace(r->str(k), static_cast<double>(seen.size()));
          order.push_back(seen[r->str(k)]);
        }
        std::string v = r->str(k);
        if ((k == "heap" || k == "size") && r->get(k) != nullptr && r->get(k)->is_number() && r->num(k) >= 1024 &&
            std::fmod(r->num(k), 1024) == 0) {
          v = bytes_label(static_cast<std::size_t>(r->num(k)));
        }
        vals.push_back(v);
        row += v + "\n";
      }
      if (cells.find(row) == cells.end()) {
        rows.push_back(row);
        row_values[row] = vals;
        row_order[row] = order;
      }
      std::string text;
      const std::string status = r->str("status");
      if (status == "ok") {
        for (const auto& m : t->metrics) {
          const double v = r->num(m);
          if (std::isfinite(v)) { text += (text.empty() ? "" : "/") + fmt_num(v); }
        }
        if (text.empty()) { text = "-"; }
        if (timed && functional_timing(*r)) {
          text += "~";
          any_functional = true;
        }
        if (r->num("failures", 0) > 0 && r->str("failures_expected") != "true") {
          text += "*";
          any_marks = true;
        }
        if (r->num("verify_errors", 0) > 0) {
          text += "!";
          any_marks = true;
        }
      } else if (status == "timed_out") {
        text = "T/O";
        any_marks = true;
      } else if (status == "skipped_budget" || status == "skipped") {
        text = "skip";
        any_marks = true;
      } else if (status == "error") {
        text = "ERR";
        any_marks = true;
      } else {
        text = status;
      }
      cells[row][r->str("allocator")] = text;
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const std::string& a, const std::string& b) { return row_order[a] < row_order[b]; });
    std::vector<std::string> cols;
    for (const auto& a : allocators) {
      for (const auto& row : rows) {
        if (cells[row].count(a) != 0) {
          cols.push_back(a);
          break;
        }
      }
    }
    std::vector<std::size_t> kw(keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) {
      kw[k] = keys[k].size();
      for (const auto& row : rows) { kw[k] = std::max(kw[k], row_values[row][k].size()); }
    }
    std::vector<std::size_t> cw(cols.size());
    for (std::size_t c = 0; c < cols.size(); ++c) {
      cw[c] = cols[c].size();
      for (const auto& row : rows) {
        const auto it = cells[row].find(cols[c]);
        if (it != cells[row].end()) { cw[c] = std::max(cw[c], it->second.size()); }
      }
    }
    auto pad = [](const std::string& s, std::size_t w, bool right) {
      return s.size() >= w ? s : (right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' '));
    };
    std::string header = "   ";
    for (std::size_t k = 0; k < keys.size(); ++k) { header += pad(keys[k], kw[k], false) + "  "; }
    header += "|";
    for (std::size_t c = 0; c < cols.size(); ++c) { header += " " + pad(cols[c], cw[c], true) + " |"; }
    os << header << "\n";
    for (const auto& row : rows) {
      std::string line = "   ";
      for (std::size_t k = 0; k < keys.size(); ++k) { line += pad(row_values[row][k], kw[k], false) + "  "; }
      line += "|";
      for (std::size_t c = 0; c < cols.size(); ++c) {
        const auto it = cells[row].find(cols[c]);
        line += " " + pad(it != cells[row].end() ? it->second : "", cw[c], true) + " |";
      }
      os << line << "\n";
    }
  }
  if (any_functional) {
    os << "\n   ~ CPU timing at the timer's floor (timed spans under " << cpu_measured_span_ms
       << " ms, median): a functional check, not a ranking\n";
  }
  if (any_marks) {
    os
      << "\n   * failed allocations where none were expected (see 'failures')   ! verification errors   T/O timed out\n"
         "   skip: skipped (time budget, or too big for the memory; see 'note')   ERR: error (see 'error' in the "
         "JSON)\n";
  }
  os << std::flush;
}

}  // namespace devalloc_bench
