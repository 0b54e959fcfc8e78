//===- CublasReference.h - The same GEMM through cuBLASLt -------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The library reference amk-bench times AMK against, on the same inputs. It
// is also checked with the same checker as AMK's output, so a bug in the
// checker or in the row-major to column-major mapping shows up as a cuBLAS
// failure.
//
// Mapping: AMK is row-major, cuBLAS column-major. A row-major [M][N] C is a
// column-major N x M matrix, so the GEMM is computed as C^T = op(B)^T op(A)^T:
// cuBLAS's "A" is our B (N x K column-major when not transposed, ld N) and
// its "B" is our A (K x M, ld K), with each transpose flag carried over to
// the operand it belongs to. The bias is then per row of the column-major
// result, which is per n, as AMK's bias[n] is.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_BENCH_CUBLASREFERENCE_H
#define AMK_BENCH_CUBLASREFERENCE_H

#include "DeviceKernels.h"

#include "AMK/Runtime/GemmProblem.h"
#include "AMK/Runtime/Status.h"

#include <cublasLt.h>

#include <string>

namespace amk::bench {

/// A cuBLASLt handle and workspace, shared by all references of a session.
class CublasContext {
public:
  CublasContext() = default;
  ~CublasContext();
  CublasContext(const CublasContext &) = delete;
  CublasContext &operator=(const CublasContext &) = delete;

  runtime::Status init(size_t workspaceBytes);
  cublasLtHandle_t handle() const { return lt; }
  void *workspace() const { return buffer; }
  size_t workspaceBytes() const { return bytes; }

private:
  cublasLtHandle_t lt = nullptr;
  void *buffer = nullptr;
  size_t bytes = 0;
};

/// One GEMM planned in cuBLASLt for a problem at concrete sizes.
class CublasReference {
public:
  /// Auto fuses the epilogue into cuBLASLt where cuBLASLt has the same
  /// function (bias, relu); Unfused always writes fp32 and finishes with
  /// amk-bench's epilogue kernel (self-tests use it to test that path).
  enum class Mode { Auto, Unfused };

  struct Operands {
    const void *a = nullptr, *b = nullptr, *bias = nullptr;
    void *c = nullptr;
  };

  CublasReference() = default;
  ~CublasReference();
  CublasReference(const CublasReference &) = delete;
  CublasReference &operator=(const CublasReference &) = delete;

  /// Builds the descriptors and picks cuBLASLt's first heuristic algorithm.
  /// fp32 inputs use compute type 32F (no tf32) for precision ieee and
  /// 32F_FAST_TF32 for tf32; f16/bf16 inputs use 32F. acc_type must be f32.
  runtime::Status prepare(const CublasContext &context,
                          const runtime::GemmProblem &problem,
                          const GemmShape &shape, ScalarType biasType,
                          const Operands &operands, Mode mode = Mode::Auto);

  /// Computes C on `stream`, reading C first when beta != 0.
  runtime::Status run(cudaStream_t stream);

  /// What runs, e.g. "cuBLASLt 32F, epilogue RELU_BIAS fused".
  const std::string &description() const { return text; }

private:
  runtime::Status build(bool fused);
  void destroyDescriptors();

  const CublasContext *context = nullptr;
  runtime::GemmProblem problem;
  GemmShape shape;
  ScalarType biasType = ScalarType::F32;
  Operands operands;
  bool fused = false;
  float alpha = 1, beta = 0;
  float *scratch = nullptr; ///< fp32 result when the epilogue is not fused.
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t layoutA = nullptr, layoutB = nullptr,
                         layoutC = nullptr;
  cublasLtMatmulAlgo_t algo = {};
  std::string text;
};

} // namespace amk::bench

#endif // AMK_BENCH_CUBLASREFERENCE_H
