// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Block range-space KKT solver (block_kkt.hpp). The equations, with M = diag(M_b) positive
// definite and A = G M^-1 G^T:
//
//   K [a; lambda] = [f; c]  <=>  M a + G^T lambda = f,  G a = c
//   a = M^-1 (f - G^T lambda),   A lambda = G M^-1 f - c                        (1)
//
// the range-space (Schur complement) form of the KKT system; Chin eq. 4.15's correction is (1)
// with f = 0: a = M^-1 G^T A^-1 r. With M_b = L_b L_b^T (Cholesky of each body block) and
// Y_b = G_b L_b^-T (G_b: the rows of G touching body b, restricted to its columns),
//
//   A = sum_b Y_b Y_b^T,   G M^-1 f = sum_b Y_b u_b with u_b = L_b^-1 f_b,
//   a_b = L_b^-T (u_b - Y_b^T lambda_b)                                        (2)
//
// (lambda_b: the multipliers of b's rows). A is positive definite when G has full row rank and
// M is positive definite, and it is factored A = L L^T by block Cholesky over groups of rows (a
// joint's rows) in a fill-reducing order. Every group couples only the groups that share a body
// with it, so a chain's A is block tridiagonal and its factor has no fill: O(N) work.
//
// Why not the sparse LDL^T of K (SparseKkt): in the order SparseKkt uses (each constraint right
// after its coordinates) its LDL^T performs exactly these operations (the coordinate pivots are
// M's, the constraint pivots -A's), but one scalar at a time through index arrays; here each
// update is a dense product of small blocks, which cut the factorization time of a pinned planar
// chain by ~3x (docs/architecture.md "Block KKT", bench/sparse_kkt_bench.cpp).
//
// Accuracy: the same as that LDL^T (the same elimination), checked against DenseKkt's pivoted
// factorizations to 1e-12 in tests/engine/kkt/block_kkt_test.cpp and on every example model.
#include "engine/kkt/block_kkt.hpp"

#include <Eigen/OrderingMethods>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace rtmb {

namespace {

// Pivots below this fraction of the diagonal they come from are rejected: the same threshold
// and reasoning as SparseKkt (sparse_kkt.cpp kPivotTol): for a redundant constraint the exact
// pivot is 0 and the computed one is the round-off of cancelling terms, a few eps relative.
constexpr double kPivotTol = 1e-12;

using Index = std::size_t;

Index ix(int i) noexcept {
  return static_cast<Index>(i);
}

}  // namespace

BlockKkt::BlockKkt(const Pattern& mass_lower_pattern, const Pattern& jacobian_pattern)
    : KktValues("BlockKkt", mass_lower_pattern, jacobian_pattern, 0) {
  // --- 1. Coordinate blocks ----------------------------------------------------------------
  // The finest contiguous partition with M block diagonal: a block ends at column j when no
  // entry of lower(M) in its columns lies below row j.
  std::vector<std::pair<int, int>> ranges;  // [begin, end)
  {
    int start = 0;
    int reach = 0;
    for (int j = 0; j < n_v_; ++j) {
      reach = std::max(reach, j);
      for (int p = mass_outer_[ix(j)]; p < mass_outer_[ix(j + 1)]; ++p) {
        reach = std::max(reach, mass_inner_[ix(p)]);  // rows >= j (KktValues checked)
      }
      if (reach == j) {
        ranges.emplace_back(start, j + 1);
        start = j + 1;
      }
    }
  }
  // Merge neighbours whose G columns all have one row pattern (a planar body: diagonal M, three
  // columns touched by the same joint rows). Merging keeps M block diagonal and turns three
  // 1-column blocks into one 3-column block: one dense kernel instead of three.
  const auto same_column = [&](int j1, int j2) {
    const int n1 = jac_outer_[ix(j1 + 1)] - jac_outer_[ix(j1)];
    const int n2 = jac_outer_[ix(j2 + 1)] - jac_outer_[ix(j2)];
    return n1 == n2 && std::equal(jac_inner_.begin() + jac_outer_[ix(j1)],
                                  jac_inner_.begin() + jac_outer_[ix(j1 + 1)],
                                  jac_inner_.begin() + jac_outer_[ix(j2)]);
  };
  const auto uniform = [&](std::pair<int, int> r) {
    for (int j = r.first + 1; j < r.second; ++j) {
      if (!same_column(r.first, j)) return false;
    }
    return true;
  };
  {
    std::vector<std::pair<int, int>> merged;
    for (const auto& r : ranges) {
      if (!merged.empty()) {
        auto& last = merged.back();
        if (uniform(last) && uniform(r) && same_column(last.first, r.first) &&
            r.second - last.first <= kMergeLimit) {
          last.second = r.second;
          continue;
        }
      }
      merged.push_back(r);
    }
    ranges = std::move(merged);
  }
  std::vector<int> block_of_col(ix(n_v_));
  for (std::size_t b = 0; b < ranges.size(); ++b) {
    for (int j = ranges[b].first; j < ranges[b].second; ++j) {
      block_of_col[ix(j)] = static_cast<int>(b);
    }
  }

  // --- 2. Rows of each block, G_b storage, M_b storage --------------------------------------
  std::vector<std::vector<int>> block_rows(ranges.size());
  int mfac_size = 0;
  int y_size = 0;
  for (std::size_t b = 0; b < ranges.size(); ++b) {
    const auto [c0, c1] = ranges[b];
    std::vector<int>& rows = block_rows[b];
    for (int j = c0; j < c1; ++j) {
      rows.insert(rows.end(), jac_inner_.begin() + jac_outer_[ix(j)],
                  jac_inner_.begin() + jac_outer_[ix(j + 1)]);
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    Block bl;
    bl.col = c0;
    bl.size = c1 - c0;
    bl.n_rows = static_cast<int>(rows.size());
    bl.g_direct = uniform(ranges[b]);
    if (bl.g_direct) {
      // consecutive CSC columns with the same rows: a column-major n_rows x size array in place
      bl.g_at = n_mass_ + jac_outer_[ix(c0)];
    } else {
      // union pattern, the entries a column lacks are permanent zeros
      bl.g_at = static_cast<int>(gbuf_.size());
      gbuf_.resize(gbuf_.size() + ix(bl.n_rows * bl.size), 0.0);
      for (int j = c0; j < c1; ++j) {
        for (int p = jac_outer_[ix(j)]; p < jac_outer_[ix(j + 1)]; ++p) {
          const auto it = std::lower_bound(rows.begin(), rows.end(), jac_inner_[ix(p)]);
          gather_src_.push_back(n_mass_ + p);
          gather_dst_.push_back(bl.g_at + (j - c0) * bl.n_rows +
                                static_cast<int>(it - rows.begin()));
        }
      }
    }
    bl.m_begin = mass_outer_[ix(c0)];
    bl.diagonal = true;
    for (int j = c0; j < c1; ++j) {
      const int p0 = mass_outer_[ix(j)];
      if (mass_outer_[ix(j + 1)] - p0 != 1 || mass_inner_[ix(p0)] != j) bl.diagonal = false;
    }
    bl.mfac_at = mfac_size;
    mfac_size += bl.size * bl.size;
    bl.y_at = y_size;
    y_size += bl.n_rows * bl.size;
    blocks_.push_back(bl);
  }
  mfac_.assign(ix(mfac_size), 0.0);
  y_.assign(ix(y_size), 0.0);
  mprev_.assign(ix(n_mass_), std::numeric_limits<double>::quiet_NaN());

  // --- 3. Row groups -------------------------------------------------------------------------
  std::vector<std::vector<int>> row_blocks(ix(n_lambda_));
  for (int j = 0; j < n_v_; ++j) {
    for (int p = jac_outer_[ix(j)]; p < jac_outer_[ix(j + 1)]; ++p) {
      std::vector<int>& rb = row_blocks[ix(jac_inner_[ix(p)])];
      if (rb.empty() || rb.back() != block_of_col[ix(j)]) rb.push_back(block_of_col[ix(j)]);
    }
  }
  for (auto& rb : row_blocks) {
    std::sort(rb.begin(), rb.end());
    rb.erase(std::unique(rb.begin(), rb.end()), rb.end());
  }
  std::vector<int> group_of_row(ix(n_lambda_));
  for (int r = 0; r < n_lambda_; ++r) {
    if (r > 0 && row_blocks[ix(r)] == row_blocks[ix(r - 1)]) {
      ++groups_.back().size;
    } else {
      groups_.push_back({r, 1, 0});
    }
    group_of_row[ix(r)] = static_cast<int>(groups_.size()) - 1;
  }
  const int ng = static_cast<int>(groups_.size());

  // the groups touching each block (rows of one group are consecutive rows of G, hence
  // consecutive in the block's sorted row list)
  std::vector<std::vector<int>> touches(blocks_.size());
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    for (const int r : block_rows[b]) {
      const int gr = group_of_row[ix(r)];
      if (touches[b].empty() || touches[b].back() != gr) touches[b].push_back(gr);
    }
  }

  // --- 4. Order of the groups -----------------------------------------------------------------
  // The group graph of A: groups are adjacent when they share a body.
  std::vector<std::vector<int>> adjacent(ix(ng));
  for (const auto& tb : touches) {
    for (const int a : tb) {
      for (const int b2 : tb) {
        if (a != b2) adjacent[ix(a)].push_back(b2);
      }
    }
  }
  for (auto& a : adjacent) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  // Symbolic block Cholesky for an order: C(k), the block rows below the diagonal of block column
  // k (elimination indices), is the later neighbours of k plus C(child) \ {k} of every child
  // (parent(c) = min C(c)). Its size in entries is the cost of an order.
  const auto symbolic = [&](const std::vector<int>& ord) {
    std::vector<int> pos_of(ix(ng));
    for (int k = 0; k < ng; ++k) pos_of[ix(ord[ix(k)])] = k;
    std::vector<std::vector<int>> c_below(ix(ng));
    std::vector<std::vector<int>> children(ix(ng));
    for (int k = 0; k < ng; ++k) {
      std::vector<int>& c = c_below[ix(k)];
      for (int h : adjacent[ix(ord[ix(k)])]) {
        if (pos_of[ix(h)] > k) c.push_back(pos_of[ix(h)]);
      }
      for (int ch : children[ix(k)]) {
        for (int i : c_below[ix(ch)]) {
          if (i != k) c.push_back(i);
        }
      }
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
      if (!c.empty()) children[ix(c.front())].push_back(k);
    }
    return c_below;
  };
  const auto entries = [&](const std::vector<int>& ord,
                           const std::vector<std::vector<int>>& c_below) {
    long long total = 0;
    for (int k = 0; k < ng; ++k) {
      const long long n = groups_[ix(ord[ix(k)])].size;
      total += n * n;
      for (int i : c_below[ix(k)]) total += n * groups_[ix(ord[ix(i)])].size;
    }
    return total;
  };
  // 4a. Fill-reducing: AMD on the group graph
  std::vector<int> order(ix(ng));  // group eliminated k-th
  if (ng > 0) {
    std::vector<Eigen::Triplet<double>> t;
    for (int k = 0; k < ng; ++k) {
      t.emplace_back(k, k, 1.0);
      for (int h : adjacent[ix(k)]) t.emplace_back(k, h, 1.0);
    }
    Pattern ga(ng, ng);
    ga.setFromTriplets(t.begin(), t.end());
    Eigen::AMDOrdering<int>::PermutationType perm;
    Eigen::AMDOrdering<int> amd;
    amd(ga, perm);
    for (int k = 0; k < ng; ++k) order[ix(k)] = perm.indices()[k];
  }
  std::vector<std::vector<int>> below = symbolic(order);
  // 4b. One level of nested dissection, kept when its factor is no larger than AMD's. Why: on a
  // chain AMD eliminates the joints one after the other, and each column of the factorization
  // and of the substitutions waits for the previous one (a 2 x 2 inverse, one division, per
  // joint): the factorization runs at the latency of that chain. Cut at a middle separator, each
  // part eliminated from its far end towards the cut and the parts interleaved, the chain becomes
  // independent chains that the processor overlaps; a path gets no fill either way.
  if (ng >= 16) {
    const auto bfs = [&](const std::vector<int>& sources, const std::vector<char>& blocked) {
      std::vector<int> dist(ix(ng), -1);
      std::vector<int> queue;
      for (int s0 : sources) {
        dist[ix(s0)] = 0;
        queue.push_back(s0);
      }
      for (std::size_t h = 0; h < queue.size(); ++h) {
        const int u = queue[h];
        for (int w : adjacent[ix(u)]) {
          if (dist[ix(w)] < 0 && blocked[ix(w)] == 0) {
            dist[ix(w)] = dist[ix(u)] + 1;
            queue.push_back(w);
          }
        }
      }
      return dist;
    };
    const std::vector<char> none(ix(ng), 0);
    std::vector<int> d0 = bfs({0}, none);
    const bool connected = std::find(d0.begin(), d0.end(), -1) == d0.end();
    if (connected) {
      // a pseudo-peripheral group, its level structure, and the level that halves the graph
      const int far = static_cast<int>(std::max_element(d0.begin(), d0.end()) - d0.begin());
      const std::vector<int> d = bfs({far}, none);
      const int depth = *std::max_element(d.begin(), d.end());
      std::vector<int> per_level(ix(depth + 1), 0);
      for (int x : d) ++per_level[ix(x)];
      int cut = 0;
      for (int seen = 0; cut < depth && seen + per_level[ix(cut)] < ng / 2; ++cut) {
        seen += per_level[ix(cut)];
      }
      std::vector<char> in_cut(ix(ng), 0);
      std::vector<int> separator;
      for (int g0 = 0; g0 < ng; ++g0) {
        if (d[ix(g0)] == cut) {
          in_cut[ix(g0)] = 1;
          separator.push_back(g0);
        }
      }
      // the parts (components without the separator), each from its far end towards the cut
      const std::vector<int> to_cut = bfs(separator, none);
      std::vector<std::vector<int>> parts;
      std::vector<char> placed(in_cut);
      for (int g0 = 0; g0 < ng; ++g0) {
        if (placed[ix(g0)] != 0) continue;
        const std::vector<int> reach = bfs({g0}, in_cut);
        std::vector<int> part;
        for (int h = 0; h < ng; ++h) {
          if (reach[ix(h)] >= 0) {
            part.push_back(h);
            placed[ix(h)] = 1;
          }
        }
        std::stable_sort(part.begin(), part.end(),
                         [&](int a, int b2) { return to_cut[ix(a)] > to_cut[ix(b2)]; });
        parts.push_back(std::move(part));
      }
      if (parts.size() >= 2) {
        std::vector<int> nd;
        for (std::size_t k = 0; nd.size() + separator.size() < ix(ng); ++k) {
          for (const auto& part : parts) {
            if (k < part.size()) nd.push_back(part[k]);
          }
        }
        nd.insert(nd.end(), separator.begin(), separator.end());
        std::vector<std::vector<int>> nd_below = symbolic(nd);
        if (entries(nd, nd_below) <= entries(order, below)) {
          order = std::move(nd);
          below = std::move(nd_below);
        }
      }
    }
  }
  std::vector<int> gpos(ix(ng));  // group -> elimination index
  for (int k = 0; k < ng; ++k) gpos[ix(order[ix(k)])] = k;
  {
    int pos = 0;
    for (int k = 0; k < ng; ++k) {
      Group& gr = groups_[ix(order[ix(k)])];
      gr.pos = pos;
      pos += gr.size;
    }
    perm_row_.resize(ix(n_lambda_));
    for (const Group& gr : groups_) {
      for (int i = 0; i < gr.size; ++i) perm_row_[ix(gr.pos + i)] = gr.row + i;
    }
  }

  // --- 5. Storage of the block factor (elimination indices) -----------------------------------
  // storage: per column k the diagonal block, then its blocks below in ascending order
  std::vector<int> diag_at(ix(ng));
  std::vector<std::vector<int>> below_at(ix(ng));
  int lsize = 0;
  const auto rows_of = [&](int k) { return groups_[ix(order[ix(k)])].size; };
  for (int k = 0; k < ng; ++k) {
    const int n = rows_of(k);
    diag_at[ix(k)] = lsize;
    lsize += n * n;
    for (int i : below[ix(k)]) {
      below_at[ix(k)].push_back(lsize);
      lsize += rows_of(i) * n;
    }
  }
  ablk_.assign(ix(lsize), 0.0);
  lblk_.assign(ix(lsize), 0.0);
  adiag_.assign(ix(n_lambda_), 0.0);
  int max_rows = 1;
  for (const Group& gr : groups_) max_rows = std::max(max_rows, gr.size);
  scratch_.assign(ix(max_rows * max_rows + 2 * max_rows), 0.0);
  // where block (i, k), i >= k, lives
  const auto block_at = [&](int i, int k) {
    if (i == k) return diag_at[ix(k)];
    const std::vector<int>& c = below[ix(k)];
    const auto it = std::lower_bound(c.begin(), c.end(), i);
    if (it == c.end() || *it != i) throw std::logic_error("BlockKkt: block outside the pattern");
    return below_at[ix(k)][ix(static_cast<int>(it - c.begin()))];
  };
  for (int k = 0; k < ng; ++k) {
    Column col;
    col.diag = diag_at[ix(k)];
    col.n = rows_of(k);
    col.pos = groups_[ix(order[ix(k)])].pos;
    col.sub_begin = static_cast<int>(subs_.size());
    const std::vector<int>& c = below[ix(k)];
    for (std::size_t a = 0; a < c.size(); ++a) {
      subs_.push_back({below_at[ix(k)][a], rows_of(c[a]), groups_[ix(order[ix(c[a])])].pos});
    }
    col.sub_end = static_cast<int>(subs_.size());
    col.upd_begin = static_cast<int>(updates_.size());
    // Schur update of every pair of blocks below: A(i1, i2) -= L(i1, k) L(i2, k)^T, i1 >= i2
    for (std::size_t a2 = 0; a2 < c.size(); ++a2) {
      for (std::size_t a1 = a2; a1 < c.size(); ++a1) {
        updates_.push_back({block_at(c[a1], c[a2]), below_at[ix(k)][a1], rows_of(c[a1]),
                            below_at[ix(k)][a2], rows_of(c[a2])});
      }
    }
    col.upd_end = static_cast<int>(updates_.size());
    columns_.push_back(col);
  }

  // --- 6. Assembly of A from the bodies, and each block's row positions ---------------------
  // Body b adds P_b = Y_b Y_b^T to A at its rows: entry (i, j), i >= j, of P_b goes to A(r_i, r_j)
  // (or its mirror), stored in the lower block of the later group; inside a diagonal block only
  // the lower triangle is kept.
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    blocks_[b].asm_at = static_cast<int>(asm_dst_.size());
    const std::vector<int>& rows = block_rows[b];
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (std::size_t j = 0; j <= i; ++j) {
        const int gi = group_of_row[ix(rows[i])];
        const int gj = group_of_row[ix(rows[j])];
        const int ki = gpos[ix(gi)];
        const int kj = gpos[ix(gj)];
        const int oi = rows[i] - groups_[ix(gi)].row;
        const int oj = rows[j] - groups_[ix(gj)].row;
        int at = 0;
        if (ki > kj) {
          at = block_at(ki, kj) + oi + oj * groups_[ix(gi)].size;
        } else if (ki < kj) {
          at = block_at(kj, ki) + oj + oi * groups_[ix(gj)].size;
        } else {
          at = block_at(ki, ki) + std::max(oi, oj) + std::min(oi, oj) * groups_[ix(gi)].size;
        }
        asm_dst_.push_back(at);
      }
    }
    blocks_[b].rows_at = static_cast<int>(row_pos_.size());
    for (int r : rows) {
      const Group& gr = groups_[ix(group_of_row[ix(r)])];
      row_pos_.push_back(gr.pos + (r - gr.row));
    }
  }
  u_.assign(2 * ix(n_v_), 0.0);
  x_.assign(2 * ix(n_lambda_), 0.0);

  // --- 7. Runs of equal shape, dispatched to their fixed-size kernels once per run -----------
  for (int b = 0; b < static_cast<int>(blocks_.size()); ++b) {
    const Block& bl = blocks_[ix(b)];
    if (!block_runs_.empty() && block_runs_.back().a == bl.size &&
        block_runs_.back().b == bl.n_rows) {
      ++block_runs_.back().end;
    } else {
      block_runs_.push_back({b, b + 1, bl.size, bl.n_rows});
    }
  }
  for (int k = 0; k < static_cast<int>(columns_.size()); ++k) {
    const Column& col = columns_[ix(k)];
    // a chain link: one block below, of the column's own size, and its one Schur update
    const int chain = col.sub_end - col.sub_begin == 1 && col.upd_end - col.upd_begin == 1 &&
                              subs_[ix(col.sub_begin)].n == col.n
                          ? 1
                          : 0;
    if (!column_runs_.empty() && column_runs_.back().a == col.n && column_runs_.back().b == chain) {
      ++column_runs_.back().end;
    } else {
      column_runs_.push_back({k, k + 1, col.n, chain});
    }
  }
}

namespace {

// The kernels below are templates on the sizes of the blocks they work on (a body's coordinates
// S and rows NR, a group's rows N) so that their loops have compile-time trip counts and become
// straight-line code: with run-time sizes of 2 to 4 the loop control, its mispredicted exits and
// the vectorizer's run-time alias checks cost more than the arithmetic (measured with callgrind:
// the first run-time-size version of this solver executed as many instructions per body as
// SparseKkt). A size of 0 means "read at run time", the fallback for uncommon sizes.

template <int N>
constexpr int dim(int n) noexcept {
  return N > 0 ? N : n;
}

template <int N>
using Size = std::integral_constant<int, N>;

// f(Size<n>{}) for 1 <= n <= 8, else f(Size<0>{}).
template <class F>
[[gnu::always_inline]] inline void with_size(int n, F&& f) {
  switch (n) {
    case 1:
      return f(Size<1>{});
    case 2:
      return f(Size<2>{});
    case 3:
      return f(Size<3>{});
    case 4:
      return f(Size<4>{});
    case 5:
      return f(Size<5>{});
    case 6:
      return f(Size<6>{});
    case 7:
      return f(Size<7>{});
    case 8:
      return f(Size<8>{});
    default:
      return f(Size<0>{});
  }
}

// f(Size<s>{}, Size<nr>{}) for a body block: s = 3 (planar) or 7 (spatial) and 1 <= nr <= 6
// compile-time, anything else at run time.
template <class F>
[[gnu::always_inline]] inline void with_body_shape(int s, int nr, F&& f) {
  const auto rows = [&](auto sc) {
    switch (nr) {
      case 1:
        return f(sc, Size<1>{});
      case 2:
        return f(sc, Size<2>{});
      case 3:
        return f(sc, Size<3>{});
      case 4:
        return f(sc, Size<4>{});
      case 5:
        return f(sc, Size<5>{});
      case 6:
        return f(sc, Size<6>{});
      default:
        return f(sc, Size<0>{});
    }
  };
  if (s == 3) return rows(Size<3>{});
  if (s == 7) return rows(Size<7>{});
  return f(Size<0>{}, Size<0>{});
}

// In-place Cholesky of the n x n column-major block l (lower triangle read and written), with
// 1 / L(j, j) stored on the diagonal. ref[j] is the diagonal entry the pivot came from (nullptr:
// the block's own diagonal, read before it is overwritten): a pivot must be positive and above
// kPivotTol * ref[j] (0 < pivot <= ref[j] in exact arithmetic for a positive definite matrix).
template <int N>
[[gnu::always_inline]] inline bool cholesky(double* l, int n_rt, const double* ref) noexcept {
  const int n = dim<N>(n_rt);
  for (int j = 0; j < n; ++j) {
    const double r = ref != nullptr ? ref[j] : l[j + j * n];
    double d = l[j + j * n];
    for (int k = 0; k < j; ++k) d -= l[j + k * n] * l[j + k * n];
    if (!(r > 0.0 && d > kPivotTol * r)) return false;  // NaN fails too
    const double inv = 1.0 / std::sqrt(d);
    l[j + j * n] = inv;
    for (int i = j + 1; i < n; ++i) {
      double x = l[i + j * n];
      for (int k = 0; k < j; ++k) x -= l[i + k * n] * l[j + k * n];
      l[i + j * n] = x * inv;
    }
  }
  return true;
}

// X <- X L^-T for X (rows x n, column-major) and L from cholesky(): row by row L x = x.
template <int N>
[[gnu::always_inline]] inline void right_solve_lt(double* __restrict x,
                                                  int rows,
                                                  const double* __restrict l,
                                                  int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < n; ++j) {
      double v = x[i + j * rows];
      for (int k = 0; k < j; ++k) v -= l[j + k * n] * x[i + k * rows];
      x[i + j * rows] = v * l[j + j * n];
    }
  }
}

enum class Mode { kStore, kAdd, kSubtract };

// dst (n1 x n2) = / += / -= X1 X2^T, X1 (n1 x n), X2 (n2 x n), column-major with leading
// dimensions ld1, ld2: L_IJ = A_IJ D^-1 and the Schur updates A_I1I2 -= L_I1J A_I2J^T.
template <int N, int N1, int N2, Mode M>
[[gnu::always_inline]] inline void product_fixed(double* __restrict dst,
                                                 int n1_rt,
                                                 int n2_rt,
                                                 const double* __restrict x1,
                                                 int ld1,
                                                 const double* __restrict x2,
                                                 int ld2,
                                                 int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  const int n1 = dim<N1>(n1_rt);
  const int n2 = dim<N2>(n2_rt);
  for (int j = 0; j < n2; ++j) {
    for (int i = 0; i < n1; ++i) {
      double acc = 0.0;
      for (int k = 0; k < n; ++k) acc += x1[i + k * ld1] * x2[j + k * ld2];
      if constexpr (M == Mode::kStore) {
        dst[i + j * n1] = acc;
      } else if constexpr (M == Mode::kAdd) {
        dst[i + j * n1] += acc;
      } else {
        dst[i + j * n1] -= acc;
      }
    }
  }
}

// product_fixed with n1, n2 compile-time when both are 1..3 (joints of 1 to 3 rows)
template <int N, Mode M>
[[gnu::always_inline]] inline void product(double* dst,
                                           int n1,
                                           int n2,
                                           const double* x1,
                                           int ld1,
                                           const double* x2,
                                           int ld2,
                                           int n) noexcept {
  switch (n1 * 4 + n2) {
    case 5:
      return product_fixed<N, 1, 1, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
    case 6:
      return product_fixed<N, 1, 2, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
    case 7:
      return product_fixed<N, 1, 3, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
    case 9:
      return product_fixed<N, 2, 1, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
    case 10:
      return product_fixed<N, 2, 2, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
    case 11:
      return product_fixed<N, 2, 3, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
    case 13:
      return product_fixed<N, 3, 1, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
    case 14:
      return product_fixed<N, 3, 2, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
    case 15:
      return product_fixed<N, 3, 3, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
    default:
      return product_fixed<N, 0, 0, M>(dst, n1, n2, x1, ld1, x2, ld2, n);
  }
}

// x_j <- L^-1 x_j (W interleaved columns), L from cholesky()
template <int N, int W>
[[gnu::always_inline]] inline void forward_lower(const double* __restrict l,
                                                 double* __restrict x,
                                                 int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  for (int j = 0; j < n; ++j) {
    for (int w = 0; w < W; ++w) {
      double v = x[W * j + w];
      for (int k = 0; k < j; ++k) v -= l[j + k * n] * x[W * k + w];
      x[W * j + w] = v * l[j + j * n];
    }
  }
}

// x_j <- L^-T x_j (W interleaved columns)
template <int N, int W>
[[gnu::always_inline]] inline void backward_upper(const double* __restrict l,
                                                  double* __restrict x,
                                                  int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  for (int j = n - 1; j >= 0; --j) {
    for (int w = 0; w < W; ++w) {
      double v = x[W * j + w];
      for (int i = j + 1; i < n; ++i) v -= l[i + j * n] * x[W * i + w];
      x[W * j + w] = v * l[j + j * n];
    }
  }
}

}  // namespace

namespace {

// x_i -= L_IJ x_j (forward) for an n_i x n block L_IJ, W interleaved columns
template <int N, int NI, int W>
[[gnu::always_inline]] inline void sub_forward(const double* __restrict li,
                                               double* __restrict xi,
                                               const double* __restrict xj,
                                               int ni_rt,
                                               int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  const int ni = dim<NI>(ni_rt);
  for (int i = 0; i < ni; ++i) {
    for (int w = 0; w < W; ++w) {
      double v = xi[W * i + w];
      for (int k = 0; k < n; ++k) v -= li[i + k * ni] * xj[W * k + w];
      xi[W * i + w] = v;
    }
  }
}

// x_j -= L_IJ^T x_i (backward)
template <int N, int NI, int W>
[[gnu::always_inline]] inline void sub_backward(const double* __restrict li,
                                                const double* __restrict xi,
                                                double* __restrict xj,
                                                int ni_rt,
                                                int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  const int ni = dim<NI>(ni_rt);
  for (int k = 0; k < n; ++k) {
    for (int w = 0; w < W; ++w) {
      double v = xj[W * k + w];
      for (int i = 0; i < ni; ++i) v -= li[i + k * ni] * xi[W * i + w];
      xj[W * k + w] = v;
    }
  }
}

// x_j <- D^-1 x_j with D^-1 full n x n, t scratch of W n
template <int N, int W>
[[gnu::always_inline]] inline void diag_apply(const double* __restrict dinv,
                                              double* __restrict xj,
                                              double* __restrict t,
                                              int n_rt) noexcept {
  const int n = dim<N>(n_rt);
  for (int i = 0; i < n; ++i) {
    for (int w = 0; w < W; ++w) {
      double v = 0.0;
      for (int k = 0; k < n; ++k) v += dinv[i + k * n] * xj[W * k + w];
      t[W * i + w] = v;
    }
  }
  for (int i = 0; i < W * n; ++i) xj[i] = t[i];
}

}  // namespace

template <int S, int NR>
bool BlockKkt::factor_block(const Block& bl, bool new_mass) noexcept {
  const int s = dim<S>(bl.size);
  const int nr = dim<NR>(bl.n_rows);
  double* __restrict l = mfac_.data() + bl.mfac_at;
  if (new_mass) {
    // M_b = L_b L_b^T, with 1 / L_b(j, j) on the diagonal
    const double* mv = values_.data();
    if (bl.diagonal) {
      for (int j = 0; j < s; ++j) {
        const double d = mv[bl.m_begin + j];
        if (!(d > 0.0)) return false;  // massless coordinate, or NaN
        l[j + j * s] = 1.0 / std::sqrt(d);
      }
    } else {
      std::fill(l, l + s * s, 0.0);
      for (int j = 0; j < s; ++j) {
        for (int p = mass_outer_[ix(bl.col + j)]; p < mass_outer_[ix(bl.col + j + 1)]; ++p) {
          l[(mass_inner_[ix(p)] - bl.col) + j * s] = mv[p];
        }
      }
      if (!cholesky<S>(l, s, nullptr)) return false;
    }
  }
  // Y_b = G_b L_b^-T (eq. 2), column-major like G_b
  const double* __restrict gb = (bl.g_direct ? values_.data() : gbuf_.data()) + bl.g_at;
  double* __restrict y = y_.data() + bl.y_at;
  if (bl.diagonal) {
    for (int j = 0; j < s; ++j) {
      const double inv = l[j + j * s];
      for (int i = 0; i < nr; ++i) y[i + j * nr] = gb[i + j * nr] * inv;
    }
  } else {
    std::copy(gb, gb + nr * s, y);
    right_solve_lt<S>(y, nr, l, s);
  }
  // P_b = Y_b Y_b^T (lower triangle) added into A
  const int* __restrict dst = asm_dst_.data() + bl.asm_at;
  double* __restrict ab = ablk_.data();
  if constexpr (S > 0 && NR > 0) {
    // whole columns of P first: with fixed sizes the compiler turns the i loop into vector code
    double p[NR * NR];
    for (int j = 0; j < NR; ++j) {
      for (int i = 0; i < NR; ++i) p[i + j * NR] = 0.0;
      for (int k = 0; k < S; ++k) {
        for (int i = 0; i < NR; ++i) p[i + j * NR] += y[i + k * NR] * y[j + k * NR];
      }
    }
    for (int i = 0; i < NR; ++i) {
      for (int j = 0; j <= i; ++j) ab[*dst++] += p[i + j * NR];
    }
  } else {
    for (int i = 0; i < nr; ++i) {
      for (int j = 0; j <= i; ++j) {
        double acc = 0.0;
        for (int k = 0; k < s; ++k) acc += y[i + k * nr] * y[j + k * nr];
        ab[*dst++] += acc;
      }
    }
  }
  return true;
}

template <int N>
bool BlockKkt::invert_spd(const double* a, int n_rt, const double* ref, double* out) noexcept {
  // out = a^-1 for the symmetric n x n block a (column-major, lower triangle read), after
  // checking that its LDL^T pivots p_j are positive and not tiny: p_j > kPivotTol * ref[j], ref
  // the diagonal of A before elimination (0 < p_j <= ref[j] in exact arithmetic for full-rank G;
  // a redundant row leaves only round-off). Written so that NaN fails. out is full (symmetric).
  const int n = dim<N>(n_rt);
  if constexpr (N == 1) {
    const double d = a[0];
    if (!(ref[0] > 0.0 && d > kPivotTol * ref[0])) return false;
    out[0] = 1.0 / d;
    return true;
  } else if constexpr (N == 2) {
    // pivots a00 and det / a00; the inverse by the adjugate: one division
    const double a00 = a[0];
    const double a10 = a[1];
    const double a11 = a[3];
    const double det = a00 * a11 - a10 * a10;
    if (!(ref[0] > 0.0 && a00 > kPivotTol * ref[0])) return false;
    if (!(ref[1] > 0.0 && det > kPivotTol * ref[1] * a00)) return false;
    const double inv = 1.0 / det;
    out[0] = a11 * inv;
    out[1] = -a10 * inv;
    out[2] = -a10 * inv;
    out[3] = a00 * inv;
    return true;
  } else {
    // Cholesky a = C C^T (pivot test inside), then column e of a^-1 = C^-T C^-1 e_e
    double* c = scratch_.data();
    std::copy(a, a + n * n, c);
    if (!cholesky<N>(c, n, ref)) return false;
    double* z = scratch_.data() + n * n;
    for (int e = 0; e < n; ++e) {
      for (int j = 0; j < n; ++j) z[j] = j == e ? 1.0 : 0.0;
      forward_lower<N, 1>(c, z, n);
      backward_upper<N, 1>(c, z, n);
      for (int j = 0; j < n; ++j) out[j + e * n] = z[j];
    }
    return true;
  }
}

template <int N, bool Chain>
bool BlockKkt::factor_column(const Column& col) noexcept {
  // Block LDL^T, A = L D L^T with unit block-lower L and block-diagonal D, right-looking:
  //   D_J = A_JJ (Schur-updated),  L_IJ = A_IJ D_J^-1,  A_I1I2 -= L_I1J A_I2J^T  (I1, I2 below J)
  // Why D_J^-1 explicitly and not a Cholesky with square roots: along a chain each column waits
  // for the previous one, so the factorization runs at the latency of this dependency chain;
  // a 2 x 2 inverse costs one division, a Cholesky two square roots and two divisions. The
  // solves then need no division at all.
  const int n = dim<N>(col.n);
  double* ab = ablk_.data();
  double* lb = lblk_.data();
  if (!invert_spd<N>(ab + col.diag, n, adiag_.data() + col.pos, lb + col.diag)) return false;
  const double* dinv = lb + col.diag;
  if constexpr (N > 0 && Chain) {
    // a chain link: one block below, of the same size, and its one update (straight-line code)
    {
      const Sub& sub = subs_[ix(col.sub_begin)];
      const Update& up = updates_[ix(col.upd_begin)];
      product_fixed<N, N, N, Mode::kStore>(lb + sub.at, N, N, ab + sub.at, N, dinv, N, N);
      product_fixed<N, N, N, Mode::kSubtract>(ab + up.dst, N, N, lb + up.l1, N, ab + up.l2, N, N);
      return true;
    }
  }
  for (int s = col.sub_begin; s < col.sub_end; ++s) {
    const Sub& sub = subs_[ix(s)];
    product<N, Mode::kStore>(lb + sub.at, sub.n, n, ab + sub.at, sub.n, dinv, n, n);
  }
  for (int u = col.upd_begin; u < col.upd_end; ++u) {
    const Update& up = updates_[ix(u)];
    product<N, Mode::kSubtract>(ab + up.dst, up.n1, up.n2, lb + up.l1, up.n1, ab + up.l2, up.n2, n);
  }
  return true;
}

template <int N, int W>
void BlockKkt::schur_forward_column(const Column& col, bool chain, double* x) noexcept {
  // forward substitution of column J: z_J is final (every earlier column has updated it), so
  // x_I -= L_IJ z_J for the blocks below, then w_J = D_J^-1 z_J
  const double* lb = lblk_.data();
  const int n = dim<N>(col.n);
  double* xj = x + W * col.pos;
  if (N > 0 && chain) {
    const Sub& sub = subs_[ix(col.sub_begin)];
    sub_forward<N, N, W>(lb + sub.at, x + W * sub.pos, xj, n, n);
  } else {
    for (int s = col.sub_begin; s < col.sub_end; ++s) {
      const Sub& sub = subs_[ix(s)];
      sub_forward<N, 0, W>(lb + sub.at, x + W * sub.pos, xj, sub.n, n);
    }
  }
  diag_apply<N, W>(lb + col.diag, xj, scratch_.data(), n);
}

template <int S, int NR, int W>
void BlockKkt::solve_block_forward(const Block& bl,
                                   const double* const* f,
                                   double* __restrict x) noexcept {
  // u_b = L_b^-1 f_b (f == nullptr: f = 0), then x += Y_b u_b at b's rows
  const int s = dim<S>(bl.size);
  const int nr = dim<NR>(bl.n_rows);
  double* __restrict ub = u_.data() + W * bl.col;
  if (f == nullptr) {
    for (int i = 0; i < W * s; ++i) ub[i] = 0.0;
    return;
  }
  const double* __restrict l = mfac_.data() + bl.mfac_at;
  for (int j = 0; j < s; ++j) {
    for (int w = 0; w < W; ++w) ub[W * j + w] = f[w][bl.col + j];
  }
  if (bl.diagonal) {
    for (int j = 0; j < s; ++j) {
      for (int w = 0; w < W; ++w) ub[W * j + w] *= l[j + j * s];
    }
  } else {
    forward_lower<S, W>(l, ub, s);
  }
  const double* __restrict y = y_.data() + bl.y_at;
  const int* __restrict rp = row_pos_.data() + bl.rows_at;
  for (int i = 0; i < nr; ++i) {
    for (int w = 0; w < W; ++w) {
      double acc = 0.0;
      for (int k = 0; k < s; ++k) acc += y[i + k * nr] * ub[W * k + w];
      x[W * rp[i] + w] += acc;
    }
  }
}

template <int S, int NR, int W>
void BlockKkt::solve_block_backward(const Block& bl,
                                    const double* __restrict x,
                                    double* const* a_out) noexcept {
  // a_b = L_b^-T (u_b - Y_b^T lambda_b)
  const int s = dim<S>(bl.size);
  const int nr = dim<NR>(bl.n_rows);
  const double* __restrict l = mfac_.data() + bl.mfac_at;
  const double* __restrict y = y_.data() + bl.y_at;
  const int* __restrict rp = row_pos_.data() + bl.rows_at;
  double* __restrict ub = u_.data() + W * bl.col;
  for (int k = 0; k < s; ++k) {
    for (int w = 0; w < W; ++w) {
      double v = ub[W * k + w];
      for (int i = 0; i < nr; ++i) v -= y[i + k * nr] * x[W * rp[i] + w];
      ub[W * k + w] = v;
    }
  }
  if (bl.diagonal) {
    for (int j = 0; j < s; ++j) {
      for (int w = 0; w < W; ++w) ub[W * j + w] *= l[j + j * s];
    }
  } else {
    backward_upper<S, W>(l, ub, s);
  }
  for (int j = 0; j < s; ++j) {
    for (int w = 0; w < W; ++w) a_out[w][bl.col + j] = ub[W * j + w];
  }
}

bool BlockKkt::factor_blocks(const double* f, double* x) noexcept {
  // M does not depend on q for planar bodies: when every value equals the last successful
  // factorization's, that factor is still exact and is kept.
  const double* mv = values_.data();
  bool same = mfac_valid_;
  for (int p = 0; same && p < n_mass_; ++p) same = mv[p] == mprev_[ix(p)];
  if (!same) mfac_valid_ = false;
  for (std::size_t e = 0; e < gather_src_.size(); ++e) {
    gbuf_[ix(gather_dst_[e])] = values_[ix(gather_src_[e])];
  }
  std::fill(ablk_.begin(), ablk_.end(), 0.0);  // A is a sum; blocks of fill start at zero
  for (const Run& run : block_runs_) {
    bool ok = true;
    with_body_shape(run.a, run.b, [&](auto sc, auto rc) {
      for (int b = run.begin; ok && b < run.end; ++b) {
        ok = factor_block<sc(), rc()>(blocks_[ix(b)], !same);
        // factor_solve(): b's share of the right-hand side while Y_b is in cache
        if (ok && f != nullptr) solve_block_forward<sc(), rc(), 1>(blocks_[ix(b)], &f, x);
      }
    });
    if (!ok) return false;
  }
  if (!same) {
    std::copy(mv, mv + n_mass_, mprev_.begin());
    mfac_valid_ = true;
  }
  for (const Column& col : columns_) {
    for (int j = 0; j < col.n; ++j) adiag_[ix(col.pos + j)] = ablk_[ix(col.diag + j + j * col.n)];
  }
  return true;
}

bool BlockKkt::factor_columns(double* x) noexcept {
  for (const Run& run : column_runs_) {
    bool ok = true;
    with_size(run.a, [&](auto nc) {
      constexpr int N = nc();
      for (int k = run.begin; ok && k < run.end; ++k) {
        const Column& col = columns_[ix(k)];
        ok = run.b != 0 ? factor_column<N, true>(col) : factor_column<N, false>(col);
        // factor_solve(): the forward substitution of this column right behind its factor
        if (ok && x != nullptr) schur_forward_column<N, 1>(col, run.b != 0, x);
      }
    });
    if (!ok) return false;
  }
  return true;
}

bool BlockKkt::factor() noexcept {
  factored_ = factor_blocks(nullptr, nullptr) && factor_columns(nullptr);
  return factored_;
}

bool BlockKkt::factor_solve(VecCRef f, VecCRef c, VecRef a_out, VecRef lambda_out) noexcept {
  // factor() then solve(f, c, ...) in one pass over the bodies and one over the columns: each
  // entry gets the same operations in the same order as the two calls, so the results are
  // bit-identical (BlockKkt.FactorSolveEqualsFactorThenSolveBitwise).
  const double* cp[1] = {c.data()};
  load_rhs<1>(cp);
  factored_ = factor_blocks(f.data(), x_.data()) && factor_columns(x_.data());
  if (!factored_) {
    a_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    lambda_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return false;
  }
  schur_backward<1>(x_.data());
  double* ap[1] = {a_out.data()};
  blocks_backward<1>(ap);
  for (int p = 0; p < n_lambda_; ++p) lambda_out[perm_row_[ix(p)]] = x_[ix(p)];
  return true;
}

template <int W>
void BlockKkt::schur_backward(double* x) noexcept {
  // L^T y = w, columns in reverse elimination order: y_J = w_J - sum_I L_IJ^T y_I
  const double* lb = lblk_.data();
  for (auto it = column_runs_.rbegin(); it != column_runs_.rend(); ++it) {
    const Run& run = *it;
    with_size(run.a, [&](auto nc) {
      constexpr int N = nc();
      for (int k = run.end - 1; k >= run.begin; --k) {
        const Column& col = columns_[ix(k)];
        const int n = dim<N>(col.n);
        double* xj = x + W * col.pos;
        if (N > 0 && run.b != 0) {
          const Sub& sub = subs_[ix(col.sub_begin)];
          sub_backward<N, N, W>(lb + sub.at, x + W * sub.pos, xj, n, n);
        } else {
          for (int s = col.sub_begin; s < col.sub_end; ++s) {
            const Sub& sub = subs_[ix(s)];
            sub_backward<N, 0, W>(lb + sub.at, x + W * sub.pos, xj, sub.n, n);
          }
        }
      }
    });
  }
}

template <int W>
void BlockKkt::solve_schur(double* x) noexcept {
  // x <- A^-1 x with A = L D L^T: forward (L z = x, w = D^-1 z) column by column in elimination
  // order, then backward (L^T y = w). W right-hand sides interleaved, each with the operations
  // of W = 1. Chain links (one block below, of the column's size) run straight-line code.
  for (const Run& run : column_runs_) {
    with_size(run.a, [&](auto nc) {
      for (int k = run.begin; k < run.end; ++k) {
        schur_forward_column<nc(), W>(columns_[ix(k)], run.b != 0, x);
      }
    });
  }
  schur_backward<W>(x);
}

template <int W>
void BlockKkt::load_rhs(const double* const* c) noexcept {
  // x = -c in the permuted row order (G M^-1 f is added block by block)
  double* x = x_.data();
  for (int p = 0; p < n_lambda_; ++p) {
    const int r = perm_row_[ix(p)];
    for (int w = 0; w < W; ++w) x[W * p + w] = -c[w][r];
  }
}

template <int W>
void BlockKkt::blocks_backward(double* const* a_out) noexcept {
  for (const Run& run : block_runs_) {
    with_body_shape(run.a, run.b, [&](auto sc, auto rc) {
      for (int b = run.begin; b < run.end; ++b) {
        solve_block_backward<sc(), rc(), W>(blocks_[ix(b)], x_.data(), a_out);
      }
    });
  }
}

template <int W>
void BlockKkt::solve_columns(const double* const* f,
                             const double* const* c,
                             double** a_out) noexcept {
  // eq. (1)-(2) for W right-hand sides at once; f == nullptr means f = 0 (the correction)
  load_rhs<W>(c);
  double* x = x_.data();
  for (const Run& run : block_runs_) {
    with_body_shape(run.a, run.b, [&](auto sc, auto rc) {
      for (int b = run.begin; b < run.end; ++b) {
        solve_block_forward<sc(), rc(), W>(blocks_[ix(b)], f, x);  // x = G M^-1 f - c
      }
    });
  }
  solve_schur<W>(x);  // lambda = A^-1 (G M^-1 f - c)
  blocks_backward<W>(a_out);
}

void BlockKkt::solve(VecCRef f, VecCRef c, VecRef a_out, VecRef lambda_out) noexcept {
  if (!factored_) {
    a_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    lambda_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  const double* fp[1] = {f.data()};
  const double* cp[1] = {c.data()};
  double* ap[1] = {a_out.data()};
  solve_columns<1>(fp, cp, ap);
  for (int p = 0; p < n_lambda_; ++p) lambda_out[perm_row_[ix(p)]] = x_[ix(p)];
}

void BlockKkt::solve_correction(VecCRef r, VecRef dx_out) noexcept {
  if (!factored_) {
    dx_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  const double* cp[1] = {r.data()};
  double* ap[1] = {dx_out.data()};
  solve_columns<1>(nullptr, cp, ap);
}

void BlockKkt::solve_correction2(VecCRef r1, VecCRef r2, VecRef dx1_out, VecRef dx2_out) noexcept {
  if (!factored_) {
    dx1_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    dx2_out.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  const double* cp[2] = {r1.data(), r2.data()};
  double* ap[2] = {dx1_out.data(), dx2_out.data()};
  solve_columns<2>(nullptr, cp, ap);
}

}  // namespace rtmb
