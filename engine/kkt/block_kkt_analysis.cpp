// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// BlockKkt's symbolic analysis (block_kkt.hpp): from the patterns of lower(M) and G, once at
// setup, the coordinate blocks (bodies), the row groups (joints), a fill-reducing order of the
// groups and the block structure of the Cholesky factor of A = G M^-1 G^T, laid out so that the
// numeric factor and solve (block_kkt.cpp, equations (1)-(2) there) only run over flat arrays.
// Allocates and may throw; nothing here runs on the real-time path.
#include <Eigen/OrderingMethods>
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/kkt/block_kkt.hpp"

namespace rtmb {

namespace {

using Index = std::size_t;

Index index_of(int i) noexcept {
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
      for (int p = mass_outer_[index_of(j)]; p < mass_outer_[index_of(j + 1)]; ++p) {
        reach = std::max(reach, mass_inner_[index_of(p)]);  // rows >= j (KktValues checked)
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
    const int n1 = jac_outer_[index_of(j1 + 1)] - jac_outer_[index_of(j1)];
    const int n2 = jac_outer_[index_of(j2 + 1)] - jac_outer_[index_of(j2)];
    return n1 == n2 && std::equal(jac_inner_.begin() + jac_outer_[index_of(j1)],
                                  jac_inner_.begin() + jac_outer_[index_of(j1 + 1)],
                                  jac_inner_.begin() + jac_outer_[index_of(j2)]);
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
  std::vector<int> block_of_col(index_of(n_v_));
  for (std::size_t b = 0; b < ranges.size(); ++b) {
    for (int j = ranges[b].first; j < ranges[b].second; ++j) {
      block_of_col[index_of(j)] = static_cast<int>(b);
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
      rows.insert(rows.end(), jac_inner_.begin() + jac_outer_[index_of(j)],
                  jac_inner_.begin() + jac_outer_[index_of(j + 1)]);
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
      bl.g_at = n_mass_ + jac_outer_[index_of(c0)];
    } else {
      // union pattern, the entries a column lacks are permanent zeros
      bl.g_at = static_cast<int>(gbuf_.size());
      gbuf_.resize(gbuf_.size() + index_of(bl.n_rows * bl.size), 0.0);
      for (int j = c0; j < c1; ++j) {
        for (int p = jac_outer_[index_of(j)]; p < jac_outer_[index_of(j + 1)]; ++p) {
          const auto it = std::lower_bound(rows.begin(), rows.end(), jac_inner_[index_of(p)]);
          gather_src_.push_back(n_mass_ + p);
          gather_dst_.push_back(bl.g_at + (j - c0) * bl.n_rows +
                                static_cast<int>(it - rows.begin()));
        }
      }
    }
    bl.m_begin = mass_outer_[index_of(c0)];
    bl.diagonal = true;
    for (int j = c0; j < c1; ++j) {
      const int p0 = mass_outer_[index_of(j)];
      if (mass_outer_[index_of(j + 1)] - p0 != 1 || mass_inner_[index_of(p0)] != j)
        bl.diagonal = false;
    }
    bl.mfac_at = mfac_size;
    mfac_size += bl.size * bl.size;
    bl.y_at = y_size;
    y_size += bl.n_rows * bl.size;
    blocks_.push_back(bl);
  }
  mfac_.assign(index_of(mfac_size), 0.0);
  y_.assign(index_of(y_size), 0.0);
  mprev_.assign(index_of(n_mass_), std::numeric_limits<double>::quiet_NaN());

  // --- 3. Row groups -------------------------------------------------------------------------
  std::vector<std::vector<int>> row_blocks(index_of(n_lambda_));
  for (int j = 0; j < n_v_; ++j) {
    for (int p = jac_outer_[index_of(j)]; p < jac_outer_[index_of(j + 1)]; ++p) {
      std::vector<int>& rb = row_blocks[index_of(jac_inner_[index_of(p)])];
      if (rb.empty() || rb.back() != block_of_col[index_of(j)])
        rb.push_back(block_of_col[index_of(j)]);
    }
  }
  for (auto& rb : row_blocks) {
    std::sort(rb.begin(), rb.end());
    rb.erase(std::unique(rb.begin(), rb.end()), rb.end());
  }
  std::vector<int> group_of_row(index_of(n_lambda_));
  for (int r = 0; r < n_lambda_; ++r) {
    if (r > 0 && row_blocks[index_of(r)] == row_blocks[index_of(r - 1)]) {
      ++groups_.back().size;
    } else {
      groups_.push_back({r, 1, 0});
    }
    group_of_row[index_of(r)] = static_cast<int>(groups_.size()) - 1;
  }
  const int ng = static_cast<int>(groups_.size());

  // the groups touching each block (rows of one group are consecutive rows of G, hence
  // consecutive in the block's sorted row list)
  std::vector<std::vector<int>> touches(blocks_.size());
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    for (const int r : block_rows[b]) {
      const int gr = group_of_row[index_of(r)];
      if (touches[b].empty() || touches[b].back() != gr) touches[b].push_back(gr);
    }
  }

  // --- 4. Order of the groups -----------------------------------------------------------------
  // The group graph of A: groups are adjacent when they share a body.
  std::vector<std::vector<int>> adjacent(index_of(ng));
  for (const auto& tb : touches) {
    for (const int a : tb) {
      for (const int b2 : tb) {
        if (a != b2) adjacent[index_of(a)].push_back(b2);
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
    std::vector<int> pos_of(index_of(ng));
    for (int k = 0; k < ng; ++k) pos_of[index_of(ord[index_of(k)])] = k;
    std::vector<std::vector<int>> c_below(index_of(ng));
    std::vector<std::vector<int>> children(index_of(ng));
    for (int k = 0; k < ng; ++k) {
      std::vector<int>& c = c_below[index_of(k)];
      for (int h : adjacent[index_of(ord[index_of(k)])]) {
        if (pos_of[index_of(h)] > k) c.push_back(pos_of[index_of(h)]);
      }
      for (int ch : children[index_of(k)]) {
        for (int i : c_below[index_of(ch)]) {
          if (i != k) c.push_back(i);
        }
      }
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
      if (!c.empty()) children[index_of(c.front())].push_back(k);
    }
    return c_below;
  };
  const auto entries = [&](const std::vector<int>& ord,
                           const std::vector<std::vector<int>>& c_below) {
    long long total = 0;
    for (int k = 0; k < ng; ++k) {
      const long long n = groups_[index_of(ord[index_of(k)])].size;
      total += n * n;
      for (int i : c_below[index_of(k)]) total += n * groups_[index_of(ord[index_of(i)])].size;
    }
    return total;
  };
  // 4a. Fill-reducing: AMD on the group graph
  std::vector<int> order(index_of(ng));  // group eliminated k-th
  if (ng > 0) {
    std::vector<Eigen::Triplet<double>> t;
    for (int k = 0; k < ng; ++k) {
      t.emplace_back(k, k, 1.0);
      for (int h : adjacent[index_of(k)]) t.emplace_back(k, h, 1.0);
    }
    Pattern ga(ng, ng);
    ga.setFromTriplets(t.begin(), t.end());
    Eigen::AMDOrdering<int>::PermutationType perm;
    Eigen::AMDOrdering<int> amd;
    amd(ga, perm);
    for (int k = 0; k < ng; ++k) order[index_of(k)] = perm.indices()[k];
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
      std::vector<int> dist(index_of(ng), -1);
      std::vector<int> queue;
      for (int s0 : sources) {
        dist[index_of(s0)] = 0;
        queue.push_back(s0);
      }
      for (std::size_t h = 0; h < queue.size(); ++h) {
        const int u = queue[h];
        for (int w : adjacent[index_of(u)]) {
          if (dist[index_of(w)] < 0 && blocked[index_of(w)] == 0) {
            dist[index_of(w)] = dist[index_of(u)] + 1;
            queue.push_back(w);
          }
        }
      }
      return dist;
    };
    const std::vector<char> none(index_of(ng), 0);
    std::vector<int> d0 = bfs({0}, none);
    const bool connected = std::find(d0.begin(), d0.end(), -1) == d0.end();
    if (connected) {
      // a pseudo-peripheral group, its level structure, and the level that halves the graph
      const int far = static_cast<int>(std::max_element(d0.begin(), d0.end()) - d0.begin());
      const std::vector<int> d = bfs({far}, none);
      const int depth = *std::max_element(d.begin(), d.end());
      std::vector<int> per_level(index_of(depth + 1), 0);
      for (int x : d) ++per_level[index_of(x)];
      int cut = 0;
      for (int seen = 0; cut < depth && seen + per_level[index_of(cut)] < ng / 2; ++cut) {
        seen += per_level[index_of(cut)];
      }
      std::vector<char> in_cut(index_of(ng), 0);
      std::vector<int> separator;
      for (int g0 = 0; g0 < ng; ++g0) {
        if (d[index_of(g0)] == cut) {
          in_cut[index_of(g0)] = 1;
          separator.push_back(g0);
        }
      }
      // the parts (components without the separator), each from its far end towards the cut
      const std::vector<int> to_cut = bfs(separator, none);
      std::vector<std::vector<int>> parts;
      std::vector<char> placed(in_cut);
      for (int g0 = 0; g0 < ng; ++g0) {
        if (placed[index_of(g0)] != 0) continue;
        const std::vector<int> reach = bfs({g0}, in_cut);
        std::vector<int> part;
        for (int h = 0; h < ng; ++h) {
          if (reach[index_of(h)] >= 0) {
            part.push_back(h);
            placed[index_of(h)] = 1;
          }
        }
        std::stable_sort(part.begin(), part.end(),
                         [&](int a, int b2) { return to_cut[index_of(a)] > to_cut[index_of(b2)]; });
        parts.push_back(std::move(part));
      }
      if (parts.size() >= 2) {
        std::vector<int> nd;
        for (std::size_t k = 0; nd.size() + separator.size() < index_of(ng); ++k) {
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
  std::vector<int> gpos(index_of(ng));  // group -> elimination index
  for (int k = 0; k < ng; ++k) gpos[index_of(order[index_of(k)])] = k;
  {
    int pos = 0;
    for (int k = 0; k < ng; ++k) {
      Group& gr = groups_[index_of(order[index_of(k)])];
      gr.pos = pos;
      pos += gr.size;
    }
    perm_row_.resize(index_of(n_lambda_));
    for (const Group& gr : groups_) {
      for (int i = 0; i < gr.size; ++i) perm_row_[index_of(gr.pos + i)] = gr.row + i;
    }
  }

  // --- 5. Storage of the block factor (elimination indices) -----------------------------------
  // storage: per column k the diagonal block, then its blocks below in ascending order
  std::vector<int> diag_at(index_of(ng));
  std::vector<std::vector<int>> below_at(index_of(ng));
  int lsize = 0;
  const auto rows_of = [&](int k) { return groups_[index_of(order[index_of(k)])].size; };
  for (int k = 0; k < ng; ++k) {
    const int n = rows_of(k);
    diag_at[index_of(k)] = lsize;
    lsize += n * n;
    for (int i : below[index_of(k)]) {
      below_at[index_of(k)].push_back(lsize);
      lsize += rows_of(i) * n;
    }
  }
  ablk_.assign(index_of(lsize), 0.0);
  lblk_.assign(index_of(lsize), 0.0);
  adiag_.assign(index_of(n_lambda_), 0.0);
  int max_rows = 1;
  for (const Group& gr : groups_) max_rows = std::max(max_rows, gr.size);
  scratch_.assign(index_of(max_rows * max_rows + 2 * max_rows), 0.0);
  // where block (i, k), i >= k, lives
  const auto block_at = [&](int i, int k) {
    if (i == k) return diag_at[index_of(k)];
    const std::vector<int>& c = below[index_of(k)];
    const auto it = std::lower_bound(c.begin(), c.end(), i);
    if (it == c.end() || *it != i) throw std::logic_error("BlockKkt: block outside the pattern");
    return below_at[index_of(k)][index_of(static_cast<int>(it - c.begin()))];
  };
  for (int k = 0; k < ng; ++k) {
    Column col;
    col.diag = diag_at[index_of(k)];
    col.n = rows_of(k);
    col.pos = groups_[index_of(order[index_of(k)])].pos;
    col.sub_begin = static_cast<int>(subs_.size());
    const std::vector<int>& c = below[index_of(k)];
    for (std::size_t a = 0; a < c.size(); ++a) {
      subs_.push_back(
          {below_at[index_of(k)][a], rows_of(c[a]), groups_[index_of(order[index_of(c[a])])].pos});
    }
    col.sub_end = static_cast<int>(subs_.size());
    col.upd_begin = static_cast<int>(updates_.size());
    // Schur update of every pair of blocks below: A(i1, i2) -= L(i1, k) L(i2, k)^T, i1 >= i2
    for (std::size_t a2 = 0; a2 < c.size(); ++a2) {
      for (std::size_t a1 = a2; a1 < c.size(); ++a1) {
        updates_.push_back({block_at(c[a1], c[a2]), below_at[index_of(k)][a1], rows_of(c[a1]),
                            below_at[index_of(k)][a2], rows_of(c[a2])});
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
        const int gi = group_of_row[index_of(rows[i])];
        const int gj = group_of_row[index_of(rows[j])];
        const int ki = gpos[index_of(gi)];
        const int kj = gpos[index_of(gj)];
        const int oi = rows[i] - groups_[index_of(gi)].row;
        const int oj = rows[j] - groups_[index_of(gj)].row;
        int at = 0;
        if (ki > kj) {
          at = block_at(ki, kj) + oi + oj * groups_[index_of(gi)].size;
        } else if (ki < kj) {
          at = block_at(kj, ki) + oj + oi * groups_[index_of(gj)].size;
        } else {
          at = block_at(ki, ki) + std::max(oi, oj) + std::min(oi, oj) * groups_[index_of(gi)].size;
        }
        asm_dst_.push_back(at);
      }
    }
    blocks_[b].rows_at = static_cast<int>(row_pos_.size());
    for (int r : rows) {
      const Group& gr = groups_[index_of(group_of_row[index_of(r)])];
      row_pos_.push_back(gr.pos + (r - gr.row));
    }
  }
  u_.assign(2 * index_of(n_v_), 0.0);
  x_.assign(2 * index_of(n_lambda_), 0.0);

  // --- 7. Runs of equal shape, dispatched to their fixed-size kernels once per run -----------
  for (int b = 0; b < static_cast<int>(blocks_.size()); ++b) {
    const Block& bl = blocks_[index_of(b)];
    if (!block_runs_.empty() && block_runs_.back().a == bl.size &&
        block_runs_.back().b == bl.n_rows) {
      ++block_runs_.back().end;
    } else {
      block_runs_.push_back({b, b + 1, bl.size, bl.n_rows});
    }
  }
  for (int k = 0; k < static_cast<int>(columns_.size()); ++k) {
    const Column& col = columns_[index_of(k)];
    // a chain link: one block below, of the column's own size, and its one Schur update
    const int chain = col.sub_end - col.sub_begin == 1 && col.upd_end - col.upd_begin == 1 &&
                              subs_[index_of(col.sub_begin)].n == col.n
                          ? 1
                          : 0;
    if (!column_runs_.empty() && column_runs_.back().a == col.n && column_runs_.back().b == chain) {
      ++column_runs_.back().end;
    } else {
      column_runs_.push_back({k, k + 1, col.n, chain});
    }
  }
}

}  // namespace rtmb
