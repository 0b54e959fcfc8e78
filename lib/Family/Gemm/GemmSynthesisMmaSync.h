//===- GemmSynthesisMmaSync.h - The mma.sync ring ---------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The shared-memory ring of the mma.sync main loop (GemmSynthesisMmaSync.cpp)
// and the copies that fill it (GemmSynthesisMmaCopies.cpp). Internal to the
// synthesizer.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_FAMILY_GEMM_GEMMSYNTHESISMMASYNC_H
#define AMK_LIB_FAMILY_GEMM_GEMMSYNTHESISMMASYNC_H

#include "GemmSynthesisBuilder.h"

#include <optional>

namespace mlir::amk::gemm {

/// Register-staged copies of one k-tile (copies under 4 bytes: a 16-bit
/// type at vector width 1, for which no cp.async exists): the
/// loaded values and what their store to shared memory needs, kept apart
/// so that nothing uses a loaded value before the store. A realigned chunk
/// is {lo, hi, shift, valid}; a single element {value, ok}. Every k-tile is
/// issued by the same code, so all k-tiles' copies have the same shape and
/// can be carried through the main loop. (Destinations are recomputed at
/// the store from the k-tile, so that the harness sees how they depend on
/// the thread and the loop.)
using StagedCopies = SmallVector<SmallVector<Value, 4>>;

/// A ring of `stages` shared-memory stages, each an A and a B tile of one
/// k-tile, XOR-swizzled in 16-byte chunks, and the copies that fill a stage:
/// cp.async (zero-filling outside the matrix) where rows allow, through
/// registers where they do not (realigned 16-byte chunks, or single
/// elements).
class MmaSyncRing {
public:
  /// Creates the ring's views; A and B are copied `aVec` and `bVec` wide.
  MmaSyncRing(GemmKernelBuilder &kb, int64_t aVec, int64_t bVec);

  /// The first element of k-tile kt's stage.
  Value stageOf(Value kt);
  /// Element offset of (row, col) in a swizzled tile of `pitch` elements.
  Value tileOffset(Value stageBase, Value row, Value col, int64_t pitch);
  /// Issues k-tile kt's copies into its stage: the cp.asyncs as one group
  /// (its token returned), the register-staged loads into `staged`.
  Value issueStage(Value kt, StagedCopies &staged);
  /// Stores k-tile kt's register-staged copies into its stage.
  void storeStaged(Value kt, const StagedCopies &copies);

  /// The whole ring as one flat array of input elements (for cp.async), and
  /// the same bytes as f16 (ldmatrix moves 16-bit values whatever they
  /// mean).
  Value view, view16;
  int64_t stages, stageElems;
  /// Where B's tile starts in a stage (elements).
  int64_t bOffset;

private:
  /// One async copy per `vec` elements; outside the matrix the copy reads
  /// nothing and writes zeros (src elements = 0, source index clamped to 0).
  struct TileCopy {
    Value global;
    bool isA;
    bool kMajor; // rows run along K
    int64_t rows, cols;
    int64_t vec; // copy width (elements)
  };
  /// A rank-2 operand as the flat buffer it lies in.
  struct FlatView {
    Value buffer, base, pitch, end;
  };

  /// Calls fn(r, col, gr, gc, rows, cols) for each piece of `width`
  /// elements this thread moves of tile `t`: (r, col) inside the tile, (gr,
  /// gc) in the operand, whose sizes are rows x cols.
  void
  forEachPiece(const TileCopy &t, Value k0, int64_t width,
               function_ref<void(Value, Value, Value, Value, Value, Value)> fn);
  /// This thread's copies of tile `t` of the k-tile at `k0`.
  void issueTile(const TileCopy &t, Value k0, Value stageBase,
                 SmallVectorImpl<Value> &tokens, StagedCopies &staged);

  // Realigned copies through registers.
  bool canRealign(const TileCopy &t) const;
  FlatView flatView(Value matrix);
  /// Loads the two aligned chunks around the n elements at (gr, gc): a
  /// staged copy {lo, hi, shift, valid}.
  SmallVector<Value, 4> loadRealigned(const FlatView &flat, Value gr, Value gc,
                                      Value rows, Value cols);
  /// The n elements starting at `shift` of lo ++ hi, zero past `valid`.
  Value finishRealigned(Value lo, Value hi, Value shift, Value valid);

  GemmKernelBuilder &kb;
  ImplicitLocOpBuilder &b;
  IndexMath &m;
  const GemmProblem &p;
  int64_t bk, threads;
  Type inType;
  /// Elements per 16-byte chunk: of the swizzle, and of a realigned copy.
  int64_t chunkElems, realignElems;
  TileCopy aCopy, bCopy;
  std::optional<FlatView> aFlat, bFlat;
};

} // namespace mlir::amk::gemm

#endif // AMK_LIB_FAMILY_GEMM_GEMMSYNTHESISMMASYNC_H
