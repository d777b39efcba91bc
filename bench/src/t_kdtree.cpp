// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/t_kdtree.cpp — Vinkler & Havran §6-7 [DS], Tables 3-4: a k-d tree build whose nodes'
// primitive-reference arrays come from the allocator under test.
//
//   kdtree  build time (median over repetitions), ratio to AtomicMalloc (`bump`) of the same run,
//           requested bytes live at the peak, allocations and their sizes, failures; real meshes
//           (Debian's libcgal-demo, .off) and generated scenes (uniform, Gaussian clusters)
//
// The build (docs/bench.md, "kdtree"): breadth first, one level of nodes at a time, no recursion.
// A node's split is the spatial median of its box's longest axis. A triangle goes to every child
// whose box its bounding box touches (closed boxes), so a node references exactly the triangles
// whose bounding boxes overlap its box. Per level, with the level's nodes in a queue in device
// memory and each node's references cut into chunks of `chunk_refs`:
//   count    one worker per chunk: how many references go left and right (two atomics per worker)
//   split    one worker per node: a leaf if nothing moves (both children would hold everything),
//            else the two children's reference arrays from the allocator under test (one alloc
//            each, sizes from 4 B to the whole scene), two node slots, and the children that will
//            be split again into the next queue
//   scatter  one worker per chunk: the references into the children's arrays
//   free     one worker per node: dealloc() of the parent's array (where the allocator's traits
//            say it frees individually; else the array stays until reset(), as for bump)
// Nodes stop at `leaf_refs` references or at depth 8 + 1.3 log2(n) (capped at 40). A failed
// allocation turns the node into a leaf (its array stays valid) and counts as a failure.
// The queue's slot and its first chunk come from one 64-bit fetch_add (slot << 38 | chunks), so the
// queue is ordered by chunk and a chunk worker finds its node by binary search.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common.hpp"
#include "tests.hpp"

namespace devalloc_bench {

namespace kdtree {

/// A triangle's bounding box (all the build and the check need of it).
struct Box {
  float lo[3];
  float hi[3];
};

struct Node {
  float lo[3];
  float hi[3];
  float split;    // plane on `axis` (nodes that may be split)
  u32 axis;       // 0, 1, 2
  u32 depth;      // root 0
  u32 count;      // references
  u32 child;      // index of the left child (right = child + 1); 0: a leaf
  u32 side[2];    // count: references going left / right
  u32 cursor[2];  // scatter: next free position in the left / right child's array
  u32 pad;
  u32* refs;  // from the allocator under test (nullptr when count == 0, or once freed)
};

inline constexpr u32 chunk_refs = 32;  // references per chunk worker
inline constexpr u32 leaf_refs = 8;    // a node of at most this many references is a leaf
inline constexpr int slot_shift = 38;  // the queue's packed counter: slot << 38 | chunks
inline constexpr u64 chunk_mask = (u64{1} << slot_shift) - 1;

struct Build {
  const Box* tris;
  Node* nodes;
  u32 node_capacity;
  u32 max_depth;
  u32* node_count;  // next free node slot (pairs)
  u32* cur_node;    // this level's queue: node index per slot ...
  u64* cur_base;    // ... and its first chunk (ascending)
  u32 cur_n;        // slots in this level's queue
  u32* next_node;   // the next level's queue
  u64* next_base;
  u64* next_packed;  // slot << slot_shift | chunks of the next level
  Counters* ctr;     // failures, verify_errors (misaligned), allocs, frees, slot_full (node pool full)
};

DEVALLOC_HOST_DEVICE inline u32 chunks_of(u32 count) { return (count + chunk_refs - 1) / chunk_refs; }

/// The spatial median of the box's longest axis; false if the box is flat in every axis.
DEVALLOC_HOST_DEVICE inline bool choose_split(const float* lo, const float* hi, u32& axis, float& split)
{
  axis = 0;
  float ext = hi[0] - lo[0];
  for (u32 a = 1; a < 3; ++a) {
    if (hi[a] - lo[a] > ext) {
      ext = hi[a] - lo[a];
      axis = a;
    }
  }
  split = lo[axis] + 0.5f * ext;
  return ext > 0;
}

/// Binary search of the queue: the slot whose chunks contain chunk c (base ascending, base[0] = 0).
DEVALLOC_DEVICE inline u32 slot_of_chunk(const u64* base, u32 n, u64 c)
{
  u32 lo = 0, hi = n;  // base[lo] <= c < base[hi]
  while (hi - lo > 1) {
    const u32 mid = lo + (hi - lo) / 2;
    if (base[mid] <= c) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The references [from, to) of chunk c's node, or false if the node is not split.
struct ChunkView {
  Node* node;
  u32 from, to;
};
DEVALLOC_DEVICE inline ChunkView chunk_view(const Build& b, std::size_t c)
{
  const u32 slot = slot_of_chunk(b.cur_base, b.cur_n, c);
  Node* node = b.nodes + b.cur_node[slot];
  const u32 from = static_cast<u32>(c - b.cur_base[slot]) * chunk_refs;
  const u32 to = node->count < from + chunk_refs ? node->count : from + chunk_refs;
  return {node, from, to};
}

struct CountKernel {
  Build b;
  DEVALLOC_DEVICE void operator()(std::size_t c) const
  {
    const ChunkView v = chunk_view(b, c);
    const u32 axis = v.node->axis;
    const float split = v.node->split;
    u32 left = 0, right = 0;
    for (u32 k = v.from; k < v.to; ++k) {
      const Box& t = b.tris[v.node->refs[k]];
      left += t.lo[axis] <= split ? 1u : 0u;
      right += t.hi[axis] >= split ? 1u : 0u;
    }
    using devalloc::detail::device_atomic;
    using devalloc::detail::memory_order_relaxed;
    if (left != 0) { device_atomic<u32>(v.node->side[0]).fetch_add(left, memory_order_relaxed); }
    if (right != 0) { device_atomic<u32>(v.node->side[1]).fetch_add(right, memory_order_relaxed); }
  }
};

/// Makes node `index` (its box, depth and count set by the caller) ready to be split later, and
/// queues it where it will be.
DEVALLOC_DEVICE inline void queue_child(const Build& b, u32 index)
{
  Node& n = b.nodes[index];
  const bool splittable = choose_split(n.lo, n.hi, n.axis, n.split);
  if (!splittable || n.count <= leaf_refs || n.depth >= b.max_depth) { return; }
  const u64 old = devalloc::detail::device_atomic<u64>(*b.next_packed)
                    .fetch_add((u64{1} << slot_shift) | chunks_of(n.count), devalloc::detail::memory_order_relaxed);
  const u32 slot = static_cast<u32>(old >> slot_shift);
  b.next_node[slot] = index;
  b.next_base[slot] = old & chunk_mask;
}

template <class H, bool Frees>
struct SplitKernel {
  H heap;
  Deadline dl;
  Build b;
  DEVALLOC_DEVICE void operator()(std::size_t s) const
  {
    Node& n = b.nodes[b.cur_node[s]];
    const u32 nl = n.side[0], nr = n.side[1];
    if (nl == n.count && nr == n.count) { return; }  // nothing would move: a leaf
    if (dl.stop()) { return; }                       // past the deadline: a leaf (cell timed out)
    const u32 pair =
      devalloc::detail::device_atomic<u32>(*b.node_count).fetch_add(2u, devalloc::detail::memory_order_relaxed);
    if (pair > b.node_capacity - 2) {
      count_add(b.ctr->slot_full);
      return;
    }
    u32* arrays[2] = {nullptr, nullptr};
    const u32 counts[2] = {nl, nr};
    bool ok = true;
    for (int c = 0; c < 2; ++c) {
      if (counts[c] == 0) { continue; }
      arrays[c] = static_cast<u32*>(heap.alloc(std::size_t{counts[c]} * sizeof(u32)));
      if (arrays[c] == nullptr) {
        count_add(b.ctr->failures);
        ok = false;
      } else {
        count_add(b.ctr->allocs);
        if (misaligned<H::alignment>(arrays[c]) || misaligned<alignof(u32)>(arrays[c])) {
          count_add(b.ctr->verify_errors);
        }
      }
    }
    if (!ok) {  // a leaf with its own array; give back what was allocated
      for (u32* p : arrays) {
        if (p != nullptr && Frees) { heap.dealloc(p); }
      }
      return;
    }
    for (u32 c = 0; c < 2; ++c) {
      Node& k = b.nodes[pair + c];
      for (u32 a = 0; a < 3; ++a) {
        k.lo[a] = n.lo[a];
        k.hi[a] = n.hi[a];
      }
      (c == 0 ? k.hi : k.lo)[n.axis] = n.split;
      k.depth = n.depth + 1;
      k.count = counts[c];
      k.child = 0;
      k.side[0] = k.side[1] = 0;
      k.cursor[0] = k.cursor[1] = 0;
      k.refs = arrays[c];
      queue_child(b, pair + c);
    }
    n.child = pair;
  }
};

struct ScatterKernel {
  Build b;
  DEVALLOC_DEVICE void operator()(std::size_t c) const
  {
    const ChunkView v = chunk_view(b, c);
    Node& n = *v.node;
    if (n.child == 0) { return; }
    const u32 axis = n.axis;
    const float split = n.split;
    u32 left = 0, right = 0;
    for (u32 k = v.from; k < v.to; ++k) {
      const Box& t = b.tris[n.refs[k]];
      left += t.lo[axis] <= split ? 1u : 0u;
      right += t.hi[axis] >= split ? 1u : 0u;
    }
    using devalloc::detail::device_atomic;
    using devalloc::detail::memory_order_relaxed;
    Node& l = b.nodes[n.child];
    Node& r = b.nodes[n.child + 1];
    u32 at_l = left != 0 ? device_atomic<u32>(n.cursor[0]).fetch_add(left, memory_order_relaxed) : 0;
    u32 at_r = right != 0 ? device_atomic<u32>(n.cursor[1]).fetch_add(right, memory_order_relaxed) : 0;
    for (u32 k = v.from; k < v.to; ++k) {
      const u32 id = n.refs[k];
      const Box& t = b.tris[id];
      if (t.lo[axis] <= split) { l.refs[at_l++] = id; }
      if (t.hi[axis] >= split) { r.refs[at_r++] = id; }
    }
  }
};

template <class H>
struct FreeParentKernel {
  H heap;
  Build b;
  DEVALLOC_DEVICE void operator()(std::size_t s) const
  {
    Node& n = b.nodes[b.cur_node[s]];
    if (n.child == 0 || n.refs == nullptr) { return; }
    heap.dealloc(n.refs);
    n.refs = nullptr;
    count_add(b.ctr->frees);
  }
};

/// The root: its reference array (every triangle) from the allocator under test.
template <class H>
struct RootKernel {
  H heap;
  Node* root;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t) const
  {
    root->refs = static_cast<u32*>(heap.alloc(std::size_t{root->count} * sizeof(u32)));
    if (root->refs == nullptr) {
      count_add(ctr->failures);
    } else {
      count_add(ctr->allocs);
    }
  }
};

struct RootFillKernel {
  Node* root;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    if (root->refs != nullptr) { root->refs[i] = static_cast<u32>(i); }
  }
};

/// The check: leaf l's references into out[offset[l] ...].
struct GatherKernel {
  const Node* nodes;
  const u32* leaf;
  const u64* offset;
  u32* out;
  DEVALLOC_DEVICE void operator()(std::size_t l) const
  {
    const Node& n = nodes[leaf[l]];
    for (u32 k = 0; k < n.count; ++k) {  // a freed array (a node the structure check refused): invalid ids
      out[offset[l] + k] = n.refs != nullptr ? detail::load_from_memory(n.refs + k) : ~0u;
    }
  }
};

/// After a repetition: every array still allocated back to the allocator.
template <class H>
struct FreeLeafKernel {
  H heap;
  const Node* nodes;
  const u32* leaf;
  DEVALLOC_DEVICE void operator()(std::size_t l) const
  {
    const Node& n = nodes[leaf[l]];
    if (n.refs != nullptr) { heap.dealloc(n.refs); }
  }
};

// ---------------------------------------------------------------------------------------------
// Scenes.

struct Scene {
  std::string name;
  std::string kind;  // mesh, uniform, clustered
  std::vector<Box> tris;
  std::string source;  // file or generator
};

Box box_of(const float* a, const float* b, const float* c)
{
  Box t{};
  for (int k = 0; k < 3; ++k) {
    t.lo[k] = std::min({a[k], b[k], c[k]});
    t.hi[k] = std::max({a[k], b[k], c[k]});
  }
  return t;
}

/// An OFF file (Object File Format): "OFF" (the counts may follow on the same line), the counts
/// of vertices, faces and edges, one vertex per line (x y z), one face per line (k i_1 ... i_k,
/// anything after that, e.g. a colour, ignored); comments (#) and blank lines are skipped. Polygons
/// are triangulated as fans. Returns false with `error` set if the file cannot be read.
bool read_off(const std::string& path, std::vector<Box>& tris, std::string& error)
{
  std::ifstream in(path);
  if (!in) {
    error = "cannot open " + path;
    return false;
  }
  std::vector<std::string> tok;  // the tokens of the next non-empty line
  auto next_line = [&]() {
    std::string line;
    while (std::getline(in, line)) {
      const auto hash = line.find('#');
      if (hash != std::string::npos) { line.resize(hash); }
      std::istringstream ls(line);
      tok.clear();
      for (std::string t; ls >> t;) { tok.push_back(t); }
      if (!tok.empty()) { return true; }
    }
    return false;
  };
  auto number = [](const std::string& t, double& v) {
    char* end = nullptr;
    v = std::strtod(t.c_str(), &end);
    return end != t.c_str() && *end == '\0';
  };
  if (!next_line() || tok[0] != "OFF") {
    error = path + ": not an OFF file (or a variant other than plain OFF)";
    return false;
  }
  tok.erase(tok.begin());
  if (tok.empty() && !next_line()) {
    error = path + ": no counts";
    return false;
  }
  double nv = 0, nf = 0;
  if (tok.size() < 2 || !number(tok[0], nv) || !number(tok[1], nf) || nv < 0 || nf < 0) {
    error = path + ": bad counts";
    return false;
  }
  std::vector<float> v(static_cast<std::size_t>(nv) * 3);
  for (std::size_t i = 0; i < static_cast<std::size_t>(nv); ++i) {
    double x[3];
    if (!next_line() || tok.size() < 3 || !number(tok[0], x[0]) || !number(tok[1], x[1]) || !number(tok[2], x[2])) {
      error = path + ": bad vertex " + std::to_string(i);
      return false;
    }
    for (int k = 0; k < 3; ++k) { v[i * 3 + k] = static_cast<float>(x[k]); }
  }
  tris.clear();
  std::vector<std::size_t> idx;
  for (std::size_t f = 0; f < static_cast<std::size_t>(nf); ++f) {
    double k = 0;
    if (!next_line() || !number(tok[0], k) || k < 0 || tok.size() < 1 + static_cast<std::size_t>(k)) {
      error = path + ": bad face " + std::to_string(f);
      return false;
    }
    idx.resize(static_cast<std::size_t>(k));
    for (std::size_t j = 0; j < idx.size(); ++j) {
      double d = 0;
      if (!number(tok[1 + j], d) || d < 0 || d >= nv) {
        error = path + ": bad index in face " + std::to_string(f);
        return false;
      }
      idx[j] = static_cast<std::size_t>(d);
    }
    for (std::size_t j = 1; j + 1 < idx.size(); ++j) {
      tris.push_back(box_of(&v[idx[0] * 3], &v[idx[j] * 3], &v[idx[j + 1] * 3]));
    }
  }
  if (tris.empty()) {
    error = path + ": no faces";
    return false;
  }
  return true;
}

/// Normal deviate from two hashes (Box-Muller).
double gaussian(u64 h1, u64 h2)
{
  const double u1 = std::max(unit_real(h1), 1e-12), u2 = unit_real(h2);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/// A triangle of vertices within `r` of `c` (each coordinate uniform in c +- r).
Box random_triangle(const double* c, double r, u64 seed, std::size_t i)
{
  float p[3][3];
  for (int v = 0; v < 3; ++v) {
    for (int k = 0; k < 3; ++k) {
      p[v][k] = static_cast<float>(c[k] + r * (2 * unit_real(hash3(seed, i, 16 + 3 * v + k)) - 1));
    }
  }
  return box_of(p[0], p[1], p[2]);
}

/// n triangles in the unit cube, centres uniform, sizes half the mean spacing.
Scene uniform_scene(std::size_t n, u64 seed)
{
  Scene s{"uniform-" + bytes_label(n), "uniform", {}, "generated"};
  s.tris.resize(n);
  const double r = 0.5 * std::cbrt(1.0 / static_cast<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const double c[3] = {unit_real(hash3(seed, i, 1)), unit_real(hash3(seed, i, 2)), unit_real(hash3(seed, i, 3))};
    s.tris[i] = random_triangle(c, r, seed, i);
  }
  return s;
}

/// n triangles in 64 Gaussian clusters (centres uniform in the unit cube, sigma 0.005 ... 0.05),
/// each triangle half the mean spacing of its cluster.
Scene clustered_scene(std::size_t n, u64 seed)
{
  Scene s{"clustered-" + bytes_label(n), "clustered", {}, "generated"};
  s.tris.resize(n);
  constexpr std::size_t clusters = 64;
  const double per = std::max(1.0, static_cast<double>(n) / clusters);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(hash3(seed, i, 4) % clusters);
    const double sigma = 0.005 + 0.045 * unit_real(hash3(seed, k, 5));
    double c[3];
    for (int a = 0; a < 3; ++a) {
      c[a] = unit_real(hash3(seed, k, 6 + a)) + sigma * gaussian(hash3(seed, i, 9 + 2 * a), hash3(seed, i, 10 + 2 * a));
    }
    s.tris[i] = random_triangle(c, 0.5 * 2 * sigma * std::cbrt(1.0 / per), seed, i);
  }
  return s;
}

/// Meshes of Debian's libcgal-demo (data.tar.gz: data/meshes/), as scripts/deps.sh --meshes
/// unpacks them.
const char* const mesh_names[] = {"ChineseDragon-10kv", "blade",     "armadillo", "bunny00",
                                  "refined_elephant",   "diplodocus"};
inline constexpr const char* mesh_subdir = ".deps/root/usr/share/doc/libcgal-dev/data/meshes";

/// Where the meshes are: --meshes-dir, DEVALLOC_MESHES_DIR, or .deps/root/... under the working
/// directory, the source tree, or a folder above the executable. Empty if none exists.
std::string find_meshes_dir(const Context& ctx, std::string& tried)
{
  std::vector<std::string> candidates;
  if (!ctx.opt.meshes_dir.empty()) {
    candidates.push_back(ctx.opt.meshes_dir);
  } else {
    if (const char* env = std::getenv("DEVALLOC_MESHES_DIR")) { candidates.emplace_back(env); }
    candidates.push_back(mesh_subdir);
#ifdef DEVALLOC_BENCH_SOURCE_DIR
    candidates.push_back(std::string(DEVALLOC_BENCH_SOURCE_DIR) + "/" + mesh_subdir);
#endif
    std::error_code ec;
    std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    for (int up = 0; !ec && up < 5 && exe.has_parent_path() && exe != exe.parent_path(); ++up) {
      exe = exe.parent_path();
      candidates.push_back((exe / mesh_subdir).string());
    }
  }
  for (const auto& c : candidates) {
    tried += (tried.empty() ? "" : ", ") + c;
    std::error_code ec;
    if (std::filesystem::is_directory(c, ec)) { return c; }
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// The host side: one build, the tree's figures, the check.

struct TreeStats {
  std::vector<u32> leaves;       // node indices, in traversal order
  u64 nodes = 0, leaf_refs = 0;  // reachable nodes; references held by leaves
  u64 allocations = 0;           // nodes with a reference array (count > 0)
  double alloc_mean = 0, alloc_std = 0, alloc_max = 0;
  double peak_bytes = 0;  // requested bytes live at the peak (the level schedule, see peak_live)
  u32 depth = 0;
  u64 structure_errors = 0;
};

/// Walks the tree from the root: leaves, sizes, and the structure check (split plane inside the
/// box, children's boxes the parent's cut at the plane, depths). `frees`: parents' arrays were freed.
TreeStats walk(const std::vector<Node>& nodes, u32 used, bool frees)
{
  TreeStats st;
  std::vector<double> level_bytes, split_bytes;  // per depth: all arrays; arrays of split nodes
  double sum = 0, sum2 = 0;
  std::vector<u32> stack{0};
  while (!stack.empty()) {
    const u32 i = stack.back();
    stack.pop_back();
    const Node& n = nodes[i];
    ++st.nodes;
    st.depth = std::max(st.depth, n.depth);
    if (level_bytes.size() <= n.depth) {
      level_bytes.resize(n.depth + 1, 0);
      split_bytes.resize(n.depth + 1, 0);
    }
    const double bytes = 4.0 * n.count;
    if (n.count > 0) {
      ++st.allocations;
      sum += bytes;
      sum2 += bytes * bytes;
      st.alloc_max = std::max(st.alloc_max, bytes);
      level_bytes[n.depth] += bytes;
    }
    if (n.child == 0) {
      st.leaves.push_back(i);
      st.leaf_refs += n.count;
      continue;
    }
    split_bytes[n.depth] += bytes;
    bool ok = n.axis < 3 && n.child + 1 < used && n.child > i && n.lo[n.axis] <= n.split && n.split <= n.hi[n.axis];
    if (ok) {
      for (u32 c = 0; c < 2; ++c) {
        const Node& k = nodes[n.child + c];
        ok = ok && k.depth == n.depth + 1;
        for (u32 a = 0; a < 3; ++a) {
          const float want_lo = (c == 1 && a == n.axis) ? n.split : n.lo[a];
          const float want_hi = (c == 0 && a == n.axis) ? n.split : n.hi[a];
          ok = ok && k.lo[a] == want_lo && k.hi[a] == want_hi;
        }
      }
    }
    if (!ok) {
      ++st.structure_errors;
      st.leaves.push_back(i);  // checked as a leaf would be (its array was freed: missing refs)
      continue;
    }
    stack.push_back(n.child + 1);
    stack.push_back(n.child);
  }
  if (st.allocations > 0) {
    st.alloc_mean = sum / static_cast<double>(st.allocations);
    st.alloc_std = std::sqrt(std::max(0.0, sum2 / static_cast<double>(st.allocations) - st.alloc_mean * st.alloc_mean));
  }
  // Level d's split step allocates level d+1 while levels <= d are allocated and the split nodes of
  // levels < d have been freed (if the allocator frees): the peak is the largest such sum.
  double allocated = level_bytes.empty() ? 0 : level_bytes[0], freed = 0;
  st.peak_bytes = allocated;
  for (std::size_t d = 0; d + 1 < level_bytes.size(); ++d) {
    allocated += level_bytes[d + 1];
    st.peak_bytes = std::max(st.peak_bytes, allocated - freed);
    if (frees) { freed += split_bytes[d]; }
  }
  return st;
}

bool overlaps(const Box& t, const float* lo, const float* hi)
{
  for (int a = 0; a < 3; ++a) {
    if (t.hi[a] < lo[a] || t.lo[a] > hi[a]) { return false; }
  }
  return true;
}

struct CheckResult {
  u64 errors = 0;
  u64 checked_triangles = 0;
  std::string first;  // the first problem, for the note
};

/// Every leaf references exactly the triangles whose boxes overlap its box: (1) each leaf's
/// references are valid, distinct and overlap its box (all leaves); (2) every triangle reaches, by
/// descending into the children its box overlaps, only leaves that reference it (every triangle up
/// to 1 M, else an even sample of 1 M). With the structure check of walk() (children inside their
/// parent) (2) finds every leaf whose box the triangle overlaps, so (1) and (2) are set equality.
CheckResult check_tree(const std::vector<Node>& nodes, const TreeStats& st, const std::vector<Box>& tris,
                       std::vector<u32>& refs, const std::vector<u64>& offset)
{
  CheckResult r;
  auto problem = [&](const std::string& what) {
    if (r.errors++ == 0) { r.first = what; }
  };
  const std::size_t n = tris.size();
  for (std::size_t l = 0; l < st.leaves.size(); ++l) {
    const Node& leaf = nodes[st.leaves[l]];
    u32* begin = refs.data() + offset[l];
    u32* end = begin + leaf.count;
    std::sort(begin, end);
    for (u32* p = begin; p != end; ++p) {
      if (*p >= n) {
        problem("leaf " + std::to_string(st.leaves[l]) + " references triangle " + std::to_string(*p));
      } else if (p != begin && *p == p[-1]) {
        problem("leaf " + std::to_string(st.leaves[l]) + " references triangle " + std::to_string(*p) + " twice");
      } else if (!overlaps(tris[*p], leaf.lo, leaf.hi)) {
        problem("leaf " + std::to_string(st.leaves[l]) + " references triangle " + std::to_string(*p) +
                ", which does not overlap its box");
      }
    }
  }
  std::vector<std::size_t> leaf_slot(nodes.size(), ~std::size_t{0});
  for (std::size_t l = 0; l < st.leaves.size(); ++l) { leaf_slot[st.leaves[l]] = l; }
  const std::size_t step = std::max<std::size_t>(1, n / (std::size_t{1} << 20));
  std::vector<u32> stack;
  for (std::size_t t = 0; t < n; t += step) {
    ++r.checked_triangles;
    stack.assign(1, 0);
    while (!stack.empty()) {
      const u32 i = stack.back();
      stack.pop_back();
      const Node& node = nodes[i];
      if (!overlaps(tris[t], node.lo, node.hi)) { continue; }
      if (leaf_slot[i] != ~std::size_t{0}) {
        const u32* begin = refs.data() + offset[leaf_slot[i]];
        if (!std::binary_search(begin, begin + node.count, static_cast<u32>(t))) {
          problem("triangle " + std::to_string(t) + " overlaps leaf " + std::to_string(i) + " but is not referenced");
        }
        continue;
      }
      stack.push_back(node.child);
      stack.push_back(node.child + 1);
    }
  }
  return r;
}

u32 depth_limit(std::size_t n)
{
  return static_cast<u32>(
    std::min(40.0, std::round(8 + 1.3 * std::log2(static_cast<double>(std::max<std::size_t>(n, 2))))));
}

/// Launches without waiting (CUDA: on the default stream; the host waits where it reads back).
template <class F>
void launch_async(Context& ctx, std::size_t workers, const F& f)
{
  if (workers == 0) { return; }
#if DEVALLOC_BACKEND_CUDA
  (void)ctx;
  const unsigned block = fit_block<F>(256);
  bench_kernel<<<static_cast<unsigned>((workers + block - 1) / block), block>>>(workers, f);
  DEVALLOC_CUDA_TRY(cudaGetLastError());
#else
  devalloc::launch(workers, f, devalloc::launch_options{256, ctx.opt.cpu_threads});
#endif
}

/// Device state of one scene's builds.
struct Buffers {
  Array<Box> tris;
  Array<Node> nodes;
  Array<u32> queue_node[2];
  Array<u64> queue_base[2];
  Array<u64> packed;  // [2]: per queue
  Array<u32> node_count;
  Array<Counters> ctr;
  u32 capacity;
  Buffers(const Scene& s, u32 cap) : tris(s.tris.size()), nodes(cap), packed(2), node_count(1), ctr(1), capacity(cap)
  {
    for (int q = 0; q < 2; ++q) {
      queue_node[q] = Array<u32>(cap);
      queue_base[q] = Array<u64>(cap);
    }
    tris.upload(s.tris);
  }
};

struct BuildResult : Timing {
  u32 levels = 0;
};

/// One timed build into b.nodes (zeroed before); the root's box is the scene's.
template <class E>
BuildResult build_tree(Context& ctx, Lease<E>& lease, Buffers& buf, const Node& root, u32 max_depth)
{
  using H = typename Lease<E>::handle_type;
  constexpr bool frees = E::allocator::traits.frees_individually;
  BuildResult out;
  buf.nodes.zero();
  buf.packed.zero();
  devalloc::detail::backend::copy_to_device(buf.nodes.data(), &root, sizeof root);
  const u32 one = 1;
  devalloc::detail::backend::copy_to_device(buf.node_count.data(), &one, sizeof one);
  Deadline dl = ctx.deadline();
  const u64 now = ctx.deadline_arm();
  dl.deadline_ns = dl.budget_ns > ~0ull - now ? ~0ull : now + dl.budget_ns;

  Build b{buf.tris.data(), buf.nodes.data(), buf.capacity, max_depth,     buf.node_count.data(), nullptr, nullptr, 0,
          nullptr,         nullptr,          nullptr,      buf.ctr.data()};
  SpanTimer span;
  span.start(ctx);
  launch_async(ctx, 1, RootKernel<H>{lease.handle(), buf.nodes.data(), buf.ctr.data()});
  launch_async(ctx, root.count, RootFillKernel{buf.nodes.data()});
  u32 qn = 0;
  u64 chunks = 0;
  if (root.count > leaf_refs && max_depth > 0) {
    // The root's queue entry (slot 0, chunk 0), written as queue_child would.
    const u32 zero32 = 0;
    const u64 zero64 = 0;
    devalloc::detail::backend::copy_to_device(buf.queue_node[0].data(), &zero32, sizeof zero32);
    devalloc::detail::backend::copy_to_device(buf.queue_base[0].data(), &zero64, sizeof zero64);
    qn = 1;
    chunks = chunks_of(root.count);
  }
  if (buf.nodes.get(0).refs == nullptr) { qn = 0; }  // the root's allocation failed: nothing to build
  int q = 0;
  while (qn > 0) {
    b.cur_node = buf.queue_node[q].data();
    b.cur_base = buf.queue_base[q].data();
    b.cur_n = qn;
    b.next_node = buf.queue_node[1 - q].data();
    b.next_base = buf.queue_base[1 - q].data();
    b.next_packed = buf.packed.data() + (1 - q);
    launch_async(ctx, chunks, CountKernel{b});
    launch_async(ctx, qn, SplitKernel<H, frees>{lease.handle(), dl, b});
    launch_async(ctx, chunks, ScatterKernel{b});
    if constexpr (frees) { launch_async(ctx, qn, FreeParentKernel<H>{lease.handle(), b}); }
    const u64 packed = buf.packed.get(1 - q);  // waits for the level
    devalloc::detail::backend::fill(buf.packed.data() + q, 0, sizeof(u64));
    qn = static_cast<u32>(packed >> slot_shift);
    chunks = packed & chunk_mask;
    q = 1 - q;
    ++out.levels;
  }
  static_cast<Timing&>(out) = span.stop(ctx);
  return out;
}

/// Offsets of the leaves' references in one flat array; their total.
u64 leaf_offsets(const std::vector<Node>& nodes, const std::vector<u32>& leaves, std::vector<u64>& offset)
{
  offset.resize(leaves.size());
  u64 total = 0;
  for (std::size_t l = 0; l < leaves.size(); ++l) {
    offset[l] = total;
    total += nodes[leaves[l]].count;
  }
  return total;
}

template <class E>
void run_scene(Context& ctx, const Scene& scene)
{
  using H = typename E::allocator::handle_type;
  constexpr bool frees = E::allocator::traits.frees_individually;
  const std::size_t n = scene.tris.size();
  const u32 max_depth = depth_limit(n);
  CellSpec spec;
  spec.params.set("scene", scene.name).set("triangles", n).set("kind", scene.kind);
  spec.params.set("leaf_refs", leaf_refs).set("max_depth", max_depth);
  // Vinkler & Havran: a pool of 200 times the root's array, enough for AtomicMalloc.
  spec.heap_bytes = clamp_heap(ctx, std::max<std::size_t>(std::size_t{64} << 20, 200 * 4 * n));
  // Cost model (CUDA's allocator): the busiest split step has about n / leaf_refs nodes, each
  // allocating two arrays of a few references.
  spec.threads = static_cast<double>(n) / leaf_refs;
  spec.size = 4.0 * leaf_refs;
  spec.ops_per_thread = 2;
  spec.kernels = ctx.scale.reps + ctx.scale.warmups;
  run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
    Node root{};
    for (int a = 0; a < 3; ++a) {
      root.lo[a] = std::numeric_limits<float>::max();
      root.hi[a] = -std::numeric_limits<float>::max();
    }
    for (const Box& t : scene.tris) {
      for (int a = 0; a < 3; ++a) {
        root.lo[a] = std::min(root.lo[a], t.lo[a]);
        root.hi[a] = std::max(root.hi[a], t.hi[a]);
      }
    }
    root.count = static_cast<u32>(n);
    choose_split(root.lo, root.hi, root.axis, root.split);
    // Nodes: about twice the leaves, a few per triangle on meshes (ChineseDragon: 2.9 per triangle);
    // a full pool makes leaves (counted in node_pool_full; the tree stays valid).
    const u32 capacity = static_cast<u32>(std::min<std::size_t>(std::size_t{1} << 31, 8 * n + 4096));
    Buffers buf(scene, capacity);
    std::vector<double> ms;
    BuildResult last;
    std::vector<Node> nodes;
    TreeStats st;
    CheckResult check;
    const int runs = ctx.scale.warmups + ctx.scale.reps;
    bool root_failed = false;
    for (int r = 0; r < runs; ++r) {
      lease.fresh();
      last = build_tree<E>(ctx, lease, buf, root, max_depth);
      const bool expired = out.check(last);
      if (!expired && r >= ctx.scale.warmups) { ms.push_back(last.ms); }
      // The tree (untimed): walk it, check it after the last repetition, give every array back.
      const u32 used = std::min(buf.node_count.get(0), capacity);
      nodes.resize(used);  // only the nodes used (the pool holds 8 per triangle)
      devalloc::detail::backend::copy_to_host(nodes.data(), buf.nodes.data(), used * sizeof(Node));
      root_failed = nodes[0].child == 0 && nodes[0].refs == nullptr;
      st = walk(nodes, used, frees);
      Array<u32> leaf_ids(st.leaves.size());
      leaf_ids.upload(st.leaves);
      const bool last_run = expired || r + 1 == runs || out.over_budget(ctx);
      // A build cut by the deadline, or without a root array, is no tree to check.
      if (last_run && !expired && !root_failed) {
        std::vector<u64> offset;
        const u64 total = leaf_offsets(nodes, st.leaves, offset);
        Array<u64> dev_offset(offset.size());
        dev_offset.upload(offset);
        Array<u32> flat(total);
        launch_plain(ctx, st.leaves.size(),
                     GatherKernel{buf.nodes.data(), leaf_ids.data(), dev_offset.data(), flat.data()});
        std::vector<u32> refs = flat.to_host();
        check = check_tree(nodes, st, scene.tris, refs, offset);
        check.errors += st.structure_errors;
      }
      if constexpr (frees) {
        launch_plain(ctx, st.leaves.size(), FreeLeafKernel<H>{lease.handle(), buf.nodes.data(), leaf_ids.data()});
      }
      if (last_run) { break; }
    }
    if (root_failed) { out.rec.set("note", "the root's reference array could not be allocated"); }
    const Counters c = buf.ctr.get(0);
    const Summary s = summarize(ms);
    put_summary(out.rec, "build_ms", s);
    out.rec.set("reps", static_cast<long long>(s.n));
    out.rec.set("ratio_to_bump", nullptr);
    out.rec.set("peak_heap_bytes", st.peak_bytes);
    out.rec.set("allocations", st.allocations)
      .set("alloc_bytes_mean", st.alloc_mean)
      .set("alloc_bytes_std", st.alloc_std);
    out.rec.set("alloc_bytes_max", st.alloc_max).set("nodes", st.nodes).set("leaves", st.leaves.size());
    out.rec.set("leaf_refs_total", st.leaf_refs)
      .set("refs_per_triangle", static_cast<double>(st.leaf_refs) / static_cast<double>(n));
    out.rec.set("depth", st.depth).set("levels", last.levels).set("frees_parents", frees);
    out.rec.set("checked_triangles", check.checked_triangles);
    out.rec.set("allocations_all_reps", c.allocs).set("frees_all_reps", c.frees);
    out.rec.set("failures", c.failures).set("verify_errors", c.verify_errors + check.errors);
    if (c.slot_full != 0) { out.rec.set("node_pool_full", c.slot_full); }
    if (!check.first.empty()) { out.rec.set("verify_note", check.first); }
    out.rec.set("source", scene.source);
  });
}

}  // namespace kdtree

void test_kdtree(Context& ctx)
{
  using namespace kdtree;
  std::vector<Scene> scenes;
  // Meshes (small: 16 K ... 89 K triangles); the CPU backend's quick run takes the smallest.
  std::string tried;
  const std::string dir = find_meshes_dir(ctx, tried);
  const bool cpu_quick = DEVALLOC_BACKEND_CPU && ctx.quick();
  std::vector<std::string> names(std::begin(mesh_names), std::end(mesh_names));
  if (cpu_quick) { names.resize(1); }
  for (const std::string& name : names) {
    Scene s{name, "mesh", {}, ""};
    std::string error;
    if (dir.empty()) {
      error = "no mesh folder (looked in " + tried + "; scripts/deps.sh --meshes, or --meshes-dir)";
    } else {
      s.source = dir + "/" + name + ".off";
      if (!std::filesystem::exists(s.source)) {
        error = "missing " + s.source + " (scripts/deps.sh --meshes)";
      } else {
        read_off(s.source, s.tris, error);
      }
    }
    if (!error.empty() || s.tris.empty()) {
      if (!ctx.opt.child) {
        for_each_allocator(ctx, [&](auto entry) {
          using E = decltype(entry);
          Record r = entry_record<E>(ctx);
          r.set("scene", name).set("triangles", nullptr).set("kind", "mesh").set("cell", "scene=" + name);
          r.set("status", "skipped").set("note", "mesh not available: " + error);
          CellOut o(r);
          finish_cell(ctx, o, 0);
        });
        std::fprintf(stderr, "kdtree: scene %s skipped: %s\n", name.c_str(), error.c_str());
      }
      continue;
    }
    scenes.push_back(std::move(s));
  }
  std::vector<std::size_t> sizes;
  if (DEVALLOC_BACKEND_CPU) {
    sizes = ctx.quick() ? std::vector<std::size_t>{4096} : std::vector<std::size_t>{16384, 65536};
  } else {
    sizes = ctx.quick() ? std::vector<std::size_t>{100000} : std::vector<std::size_t>{1000000, 3000000, 10000000};
  }
  for (const std::size_t n : sizes) {
    scenes.push_back(uniform_scene(n, ctx.opt.seed));
    scenes.push_back(clustered_scene(n, ctx.opt.seed + 1));
  }

  for (const Scene& scene : scenes) {
    for_each_entry([&](auto entry) {
      using E = decltype(entry);
      if constexpr (may_overlap_live<E>) {
        // AWMalloc may hand out a leaf's live array again: the tree could not be trusted.
        if (ctx.allocator_selected(E::name) && !ctx.opt.child) {
          Record r = entry_record<E>(ctx);
          r.set("scene", scene.name).set("triangles", scene.tris.size()).set("kind", scene.kind);
          r.set("cell", cell_label(Record().set("scene", scene.name).set("triangles", scene.tris.size())));
          r.set("status", "skipped")
            .set("note", "may hand out live memory (traits.may_overlap_live): leaves live to the end");
          CellOut o(r);
          finish_cell(ctx, o, 0);
        }
      } else {
        if (ctx.allocator_selected(E::name)) { run_scene<E>(ctx, scene); }
      }
    });
  }
}

/// ratio_to_bump of every kdtree record: its build time over bump's for the same scene in the same
/// run (also for records of child processes, which arrive after the test). Never from a functional
/// CPU timing.
void kdtree_bump_ratios(Context& ctx)
{
  std::map<std::string, double> bump;
  for (const Record& r : ctx.records) {
    if (r.str("test") == "kdtree" && r.str("allocator") == "bump" && r.str("status") == "ok" &&
        r.str("timing") != "functional") {
      bump[r.str("cell")] = r.num("build_ms_median");
    }
  }
  for (Record& r : ctx.records) {
    if (r.str("test") != "kdtree" || r.str("status") != "ok" || r.str("timing") == "functional") { continue; }
    const auto it = bump.find(r.str("cell"));
    const double x = r.num("build_ms_median");
    if (it != bump.end() && std::isfinite(x) && std::isfinite(it->second) && x > 0 && it->second > 0) {
      r.set("ratio_to_bump", x / it->second);
    }
  }
}

}  // namespace devalloc_bench
