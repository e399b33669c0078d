// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

#include <Eigen/SparseCore>
#include <span>
#include <string>
#include <vector>

#include "engine/kkt/kkt_values.hpp"
#include "rtmb/types.hpp"

namespace rtmb {

/// Block range-space solver for the KKT system of a constrained mechanical system in absolute
/// (body) coordinates,
///
///     K = [ M  G^T ]      K [a; lambda] = [f; c],
///         [ G   0  ]
///
/// for M block diagonal (one small block per body) and positive definite. With the same
/// interface as SparseKkt (pattern in, CSC values in, factor(), solve()), it eliminates the
/// bodies first and factors the Schur complement
///
///     A = G M^-1 G^T = sum_b G_b M_b^-1 G_b^T          (n_lambda x n_lambda, positive definite)
///
/// by block Cholesky over groups of constraint rows (a joint's rows), so every operation is a
/// small dense kernel on a body block (s_b coordinates) or a joint block (n_I rows) instead of a
/// scalar sparse update with index look-ups: the same arithmetic as a sparse LDL^T of K that
/// eliminates each body before its joints (SparseKkt's order), with far less bookkeeping.
/// Equations and the derivation: block_kkt.cpp and docs/architecture.md "Block KKT".
///
/// Structure found at setup from the patterns (no System support needed):
///  * coordinate blocks: the finest contiguous partition with M block diagonal, then adjacent
///    blocks merged while their G columns share one row pattern and the merged size is at most
///    kMergeLimit (a planar body's x, y, theta have a diagonal M but are one body);
///  * row groups: maximal runs of consecutive rows of G that touch the same coordinate blocks;
///  * a fill-reducing (AMD) order of the groups and the block structure of the Cholesky factor.
///
/// What it cannot do (factor() returns false; use DenseKkt): M not positive definite (massless
/// coordinate) even when K is invertible. Rows of G that are dependent at the current
/// configuration are dropped (zero multipliers, dropped_rows()), as in DenseKkt.
class BlockKkt : public KktValues {
 public:
  /// Largest coordinate block made by merging (see above); blocks M itself couples are kept
  /// whatever their size.
  static constexpr int kMergeLimit = 8;

  /// Setup (allocates). Patterns as for SparseKkt: the lower triangle of M including the
  /// diagonal, and G; only the structure is read. Throws std::invalid_argument on bad patterns.
  BlockKkt(const Pattern& mass_lower_pattern, const Pattern& jacobian_pattern);

  /// Factors M's blocks and A from the current values. false (the caller flags kSingularKkt)
  /// when a pivot of M is not positive or tiny, or a pivot of A is clearly negative or not
  /// finite. A pivot of A tiny relative to the diagonal it came from is a dependent row at this
  /// configuration: dropped with a zero multiplier (dropped_rows()), not a failure. RT-safe: no
  /// allocation, no throw.
  [[nodiscard]] bool factor() noexcept;

  /// K [a; lambda] = [f; c] with the last factor(); NaN after a failed one. RT-safe.
  void solve(VecCRef f, VecCRef c, VecRef a_out, VecRef lambda_out) noexcept;
  /// factor() and solve(f, c, ...) in one sweep (the dynamics' one solve per factorization),
  /// bit-identical to the two calls; later solve*() calls reuse the factorization. RT-safe.
  [[nodiscard]] bool factor_solve(VecCRef f, VecCRef c, VecRef a_out, VecRef lambda_out) noexcept;
  /// top(K^-1 [0; r]) = M^-1 G^T A^-1 r (Chin eq. 4.15). RT-safe.
  void solve_correction(VecCRef r, VecRef dx_out) noexcept;
  /// solve_correction() of r1 and r2, bit-identical to two calls. RT-safe.
  void solve_correction2(VecCRef r1, VecCRef r2, VecRef dx1_out, VecRef dx2_out) noexcept;

  /// Rows of G the last factorization found dependent at this configuration (G lost rank: a
  /// singular position) and left out with zero multipliers (block_kkt.cpp invert_spd); the
  /// other rows' equations hold exactly.
  [[nodiscard]] int dropped_rows() const noexcept { return dropped_; }
  [[nodiscard]] bool rank_deficient() const noexcept { return dropped_ > 0; }

  /// Diagnostics for tests and benchmarks.
  [[nodiscard]] int n_blocks() const noexcept { return static_cast<int>(blocks_.size()); }
  [[nodiscard]] int block_size(int b) const noexcept { return blocks_[std::size_t(b)].size; }
  [[nodiscard]] int n_groups() const noexcept { return static_cast<int>(groups_.size()); }
  /// Stored entries of the block LDL^T factor of A (D^-1 blocks full, off-diagonal blocks of
  /// L in the fill pattern); fixed at setup.
  [[nodiscard]] int factor_entries() const noexcept { return static_cast<int>(lblk_.size()); }

 private:
  /// A coordinate block (a body): columns [col, col + size) of K.
  struct Block {
    int col = 0;
    int size = 0;
    int n_rows = 0;         ///< rows of G touching the block (the union of its columns' patterns)
    int rows_at = 0;        ///< first entry of its rows in row_pos_
    int g_at = 0;           ///< G_b (n_rows x size, column-major): offset in values_ or gbuf_
    bool g_direct = false;  ///< G_b read in place from values_ (all columns share one pattern)
    bool diagonal = false;  ///< M_b's pattern is diagonal: L_b = diag(sqrt(M_b))
    int m_begin = 0;        ///< first CSC slot of M_b in values_ (its columns are contiguous)
    int mfac_at = 0;        ///< L_b (size x size, column-major, lower) in mfac_
    int y_at = 0;           ///< Y_b = G_b L_b^-T (n_rows x size, column-major) in y_
    int asm_at = 0;  ///< where P_b = Y_b Y_b^T goes in A: asm_dst_[asm_at ...] (lower, by rows)
  };
  /// A group of consecutive constraint rows touching the same blocks (a joint).
  struct Group {
    int row = 0;   ///< first row of G
    int size = 0;  ///< number of rows
    int pos = 0;   ///< first position in the permuted (elimination) order of rows
  };
  /// One block column J of the factor, in elimination order.
  struct Column {
    int diag;       ///< L_JJ (n x n, column-major) in lblk_
    int n;          ///< rows of group J
    int pos;        ///< its first position in the permuted rows
    int sub_begin;  ///< blocks below the diagonal: subs_[sub_begin, sub_end)
    int sub_end;
    int upd_begin;  ///< Schur updates it causes: updates_[upd_begin, upd_end)
    int upd_end;
  };
  /// L_IJ below the diagonal of its column: n rows at permuted position pos, stored at `at`.
  struct Sub {
    int at;
    int n;
    int pos;
  };
  /// Consecutive blocks (or columns) of one shape: [begin, end) with sizes a, b (blocks: size
  /// and rows; columns: rows and 1 for a chain link, one block below of its own size).
  struct Run {
    int begin;
    int end;
    int a;
    int b;
  };
  /// dst (n1 x n2) -= L1 (n1 x nJ) L2^T (nJ x n2); L1, L2 blocks of the same column J.
  struct Update {
    int dst;
    int l1, n1;
    int l2, n2;
  };

  /// M_b's factor (unless M is unchanged), Y_b and b's terms of A, for every block b; with f,
  /// also b's share G_b M_b^-1 f_b of the right-hand side x.
  [[nodiscard]] bool factor_blocks(const double* f, double* x) noexcept;
  /// The block LDL^T of A; with x, the forward substitution L z = x, w = D^-1 z alongside.
  [[nodiscard]] bool factor_columns(double* x) noexcept;
  /// f(sub, Size<NI>{}) for every block L_IJ below column col: on a chain link (N > 0 and
  /// chain) its one block, of the column's size (NI = N, compile-time); otherwise each block with
  /// its size read at run time (NI = 0).
  template <int N, class F>
  [[gnu::always_inline]] inline void for_each_below(const Column& col,
                                                    bool chain,
                                                    F&& f) const noexcept;
  template <int N, int W>
  [[gnu::always_inline]] inline void schur_forward_column(const Column& col,
                                                          bool chain,
                                                          double* x) noexcept;
  template <int W>
  void schur_backward(double* x) noexcept;
  template <int W>
  void load_rhs(const double* const* c) noexcept;
  template <int W>
  void blocks_backward(double* const* a_out) noexcept;
  template <int S, int NR>
  [[gnu::always_inline]] [[nodiscard]] inline bool factor_block(const Block& bl,
                                                                bool new_mass) noexcept;
  template <int N, bool Chain>
  [[gnu::always_inline]] [[nodiscard]] inline bool factor_column(const Column& col) noexcept;
  template <int N>
  [[nodiscard]] bool invert_spd(const double* a, int n, const double* ref, double* out) noexcept;
  /// rhs (permuted rows, width w columns interleaved) <- A^-1 rhs with the block factor.
  template <int W>
  void solve_schur(double* rhs) noexcept;
  template <int W>
  void solve_columns(const double* const* f, const double* const* c, double** a_out) noexcept;
  template <int S, int NR, int W>
  [[gnu::always_inline]] inline void solve_block_forward(const Block& bl,
                                                         const double* const* f,
                                                         double* x) noexcept;
  template <int S, int NR, int W>
  [[gnu::always_inline]] inline void solve_block_backward(const Block& bl,
                                                          const double* x,
                                                          double* const* a_out) noexcept;

  std::vector<Block> blocks_;
  std::vector<int> row_pos_;     ///< per block, the permuted position of each of its rows
  std::vector<double> gbuf_;     ///< G_b of blocks whose columns differ in pattern (zeros kept)
  std::vector<int> gather_src_;  ///< ... filled from these jacobian slots
  std::vector<int> gather_dst_;  ///< ... into these gbuf_ entries
  std::vector<double> mfac_;     ///< L_b of every block
  std::vector<double> mprev_;    ///< M values of the last successful block factorization
  bool mfac_valid_ = false;      ///< mfac_ is the factor of mprev_
  std::vector<double> y_;        ///< Y_b of every block

  std::vector<Group> groups_;
  std::vector<int> perm_row_;  ///< permuted position -> row of G
  std::vector<int> asm_dst_;   ///< per block, the A entry of each lower entry of P_b
  std::vector<Column> columns_;
  std::vector<Run> block_runs_;
  std::vector<Run> column_runs_;
  std::vector<Sub> subs_;
  std::vector<Update> updates_;
  std::vector<double> ablk_;     ///< A block by block, Schur-updated during factor()
  std::vector<double> lblk_;     ///< L_IJ at the offsets of A_IJ, D_J^-1 at those of A_JJ
  std::vector<double> scratch_;  ///< a block's Cholesky factor and columns (invert_spd, solves)
  std::vector<double> adiag_;    ///< diagonal of A before elimination (pivot test), permuted

  std::vector<double> u_;  ///< L_b^-1 f_b of every block, width 2 (solves)
  std::vector<double> x_;  ///< permuted right-hand side / lambda, width 2 (solves)
  bool factored_ = false;
  int dropped_ = 0;  ///< rows dropped by the last factorization
};

}  // namespace rtmb
