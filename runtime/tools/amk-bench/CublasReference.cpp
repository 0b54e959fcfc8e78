//===- CublasReference.cpp - The same GEMM through cuBLASLt ---------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "CublasReference.h"

#include <cstdint>

using amk::runtime::Activation;
using amk::runtime::Precision;
using amk::runtime::Status;

namespace amk::bench {

namespace {

Status cublasError(cublasStatus_t status, const std::string &what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return Status::success();
  return Status::error(what + " failed: " + cublasLtGetStatusName(status) +
                       " (" + cublasLtGetStatusString(status) + ")");
}

Status cudaError(cudaError_t err, const std::string &what) {
  if (err == cudaSuccess)
    return Status::success();
  return Status::error(what + " failed: " + cudaGetErrorName(err) + " (" +
                       cudaGetErrorString(err) + ")");
}

#define AMK_TRY(expr)                                                          \
  do {                                                                         \
    if (Status amkStatus = (expr); !amkStatus.ok())                            \
      return amkStatus;                                                        \
  } while (false)

cudaDataType_t cudaType(ScalarType type) {
  switch (type) {
  case ScalarType::F16:
    return CUDA_R_16F;
  case ScalarType::BF16:
    return CUDA_R_16BF;
  case ScalarType::F32:
    return CUDA_R_32F;
  case ScalarType::F64:
    return CUDA_R_64F;
  case ScalarType::I32: // refused by the GEMM checks
    return CUDA_R_32I;
  }
  return CUDA_R_32F;
}

template <class T>
Status setDesc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
               const T &value, const char *name) {
  return cublasError(
      cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof(value)),
      std::string("cublasLtMatmulDescSetAttribute(") + name + ")");
}

/// A column-major rows x cols layout with leading dimension `rows`, batched
/// with one matrix after another.
Status makeLayout(cublasLtMatrixLayout_t &layout, cudaDataType_t type,
                  int64_t rows, int64_t cols, int64_t batch) {
  AMK_TRY(
      cublasError(cublasLtMatrixLayoutCreate(&layout, type, rows, cols, rows),
                  "cublasLtMatrixLayoutCreate"));
  if (batch == 1)
    return Status::success();
  int32_t count = static_cast<int32_t>(batch);
  int64_t stride = rows * cols;
  AMK_TRY(cublasError(
      cublasLtMatrixLayoutSetAttribute(
          layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
      "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)"));
  return cublasError(cublasLtMatrixLayoutSetAttribute(
                         layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                         &stride, sizeof(stride)),
                     "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
}

const char *epilogueName(cublasLtEpilogue_t epilogue) {
  switch (epilogue) {
  case CUBLASLT_EPILOGUE_BIAS:
    return "BIAS";
  case CUBLASLT_EPILOGUE_RELU:
    return "RELU";
  case CUBLASLT_EPILOGUE_RELU_BIAS:
    return "RELU_BIAS";
  default:
    return "DEFAULT";
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// CublasContext
//===----------------------------------------------------------------------===//

CublasContext::~CublasContext() {
  if (buffer)
    (void)cudaFree(buffer);
  if (lt)
    (void)cublasLtDestroy(lt);
}

Status CublasContext::init(size_t workspaceBytes) {
  AMK_TRY(cublasError(cublasLtCreate(&lt), "cublasLtCreate"));
  AMK_TRY(cudaError(cudaMalloc(&buffer, workspaceBytes),
                    "cudaMalloc(cuBLASLt workspace)"));
  bytes = workspaceBytes;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// CublasReference
//===----------------------------------------------------------------------===//

CublasReference::~CublasReference() {
  destroyDescriptors();
  if (scratch)
    (void)cudaFree(scratch);
}

void CublasReference::destroyDescriptors() {
  for (cublasLtMatrixLayout_t *layout : {&layoutA, &layoutB, &layoutC})
    if (*layout) {
      (void)cublasLtMatrixLayoutDestroy(*layout);
      *layout = nullptr;
    }
  if (operation)
    (void)cublasLtMatmulDescDestroy(operation);
  operation = nullptr;
}

Status CublasReference::prepare(const CublasContext &ctx,
                                const runtime::GemmProblem &p,
                                const GemmShape &s, ScalarType bias,
                                const Operands &ops, Mode mode) {
  if (p.accType != ScalarType::F32)
    return Status::error(std::string("acc_type ") +
                         runtime::toString(p.accType) +
                         " is not supported (amk-bench compares f32 "
                         "accumulation only)");
  context = &ctx;
  problem = p;
  shape = s;
  biasType = bias;
  operands = ops;
  bool fusable =
      p.activation == Activation::None || p.activation == Activation::ReLU;
  if (mode == Mode::Auto && fusable) {
    Status status = build(/*fused=*/true);
    if (status.ok())
      return status;
    // E.g. no cuBLASLt kernel for this bias type: fall back.
    text = "fused epilogue unavailable (" + status.message() + "); ";
  } else {
    text.clear();
  }
  return build(/*fused=*/false);
}

Status CublasReference::build(bool fuse) {
  destroyDescriptors();
  fused = fuse;
  const runtime::GemmProblem &p = problem;
  bool tf32 = p.precision == Precision::TF32;
  cublasComputeType_t compute =
      tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  AMK_TRY(cublasError(cublasLtMatmulDescCreate(&operation, compute, CUDA_R_32F),
                      "cublasLtMatmulDescCreate"));
  // cuBLAS's A is our B, its B our A (see the file comment).
  cublasOperation_t opA = p.transposeB ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = p.transposeA ? CUBLAS_OP_T : CUBLAS_OP_N;
  AMK_TRY(setDesc(operation, CUBLASLT_MATMUL_DESC_TRANSA, opA, "TRANSA"));
  AMK_TRY(setDesc(operation, CUBLASLT_MATMUL_DESC_TRANSB, opB, "TRANSB"));

  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  if (fused) {
    bool relu = p.activation == Activation::ReLU;
    if (p.bias)
      epilogue = relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
    else if (relu)
      epilogue = CUBLASLT_EPILOGUE_RELU;
    AMK_TRY(setDesc(operation, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue,
                    "EPILOGUE"));
  }
  if (fused && p.bias) {
    int32_t type = cudaType(biasType);
    int64_t batchStride = shape.biasPerBatch ? shape.n : 0;
    AMK_TRY(setDesc(operation, CUBLASLT_MATMUL_DESC_BIAS_POINTER, operands.bias,
                    "BIAS_POINTER"));
    AMK_TRY(setDesc(operation, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, type,
                    "BIAS_DATA_TYPE"));
    AMK_TRY(setDesc(operation, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
                    batchStride, "BIAS_BATCH_STRIDE"));
  }

  const GemmShape &s = shape;
  cudaDataType_t in = cudaType(p.inType);
  cudaDataType_t out = fused ? cudaType(p.outType) : CUDA_R_32F;
  AMK_TRY(makeLayout(layoutA, in, p.transposeB ? s.k : s.n,
                     p.transposeB ? s.n : s.k, s.batch));
  AMK_TRY(makeLayout(layoutB, in, p.transposeA ? s.m : s.k,
                     p.transposeA ? s.k : s.m, s.batch));
  AMK_TRY(makeLayout(layoutC, out, s.n, s.m, s.batch));

  cublasLtMatmulPreference_t preference = nullptr;
  AMK_TRY(cublasError(cublasLtMatmulPreferenceCreate(&preference),
                      "cublasLtMatmulPreferenceCreate"));
  uint64_t workspace = context->workspaceBytes();
  // Split-K partial sums in the output type (e.g. bf16) would lose accuracy
  // that AMK's kernels keep; allow only fp32 reductions.
  uint32_t reductions = CUBLASLT_REDUCTION_SCHEME_INPLACE |
                        CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  Status status =
      cublasError(cublasLtMatmulPreferenceSetAttribute(
                      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                      &workspace, sizeof(workspace)),
                  "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  if (status.ok())
    status = cublasError(
        cublasLtMatmulPreferenceSetAttribute(
            preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reductions,
            sizeof(reductions)),
        "cublasLtMatmulPreferenceSetAttribute(REDUCTION_SCHEME_MASK)");
  if (status.ok())
    status = cublasError(cublasLtMatmulAlgoGetHeuristic(
                             context->handle(), operation, layoutA, layoutB,
                             layoutC, layoutC, preference, 1, &result, &found),
                         "cublasLtMatmulAlgoGetHeuristic");
  (void)cublasLtMatmulPreferenceDestroy(preference);
  if (status.ok() && found == 0)
    status = Status::error("cuBLASLt has no algorithm for this GEMM");
  if (!status.ok())
    return status;
  algo = result.algo;

  alpha = static_cast<float>(p.alpha);
  beta = fused ? static_cast<float>(p.beta) : 0.0f;
  if (!fused && !scratch)
    AMK_TRY(cudaError(cudaMalloc(&scratch, s.sizeC() * sizeof(float)),
                      "cudaMalloc(cuBLAS fp32 result)"));
  text += std::string("cuBLASLt ") + (tf32 ? "32F_FAST_TF32" : "32F");
  if (fused)
    text +=
        epilogue == CUBLASLT_EPILOGUE_DEFAULT
            ? std::string(", no epilogue")
            : std::string(", epilogue ") + epilogueName(epilogue) + " fused";
  else
    text += " to fp32, then amk-bench's epilogue kernel (" +
            std::string(runtime::toString(p.activation)) +
            (p.bias ? ", bias" : "") + (p.beta != 0 ? ", beta" : "") + ")";
  return Status::success();
}

Status CublasReference::run(cudaStream_t stream) {
  if (!operation)
    return Status::error("cuBLAS reference is not prepared");
  void *d = fused ? operands.c : static_cast<void *>(scratch);
  AMK_TRY(cublasError(
      cublasLtMatmul(context->handle(), operation, &alpha, operands.b, layoutA,
                     operands.a, layoutB, &beta, d, layoutC, d, layoutC, &algo,
                     context->workspace(), context->workspaceBytes(), stream),
      "cublasLtMatmul"));
  if (fused)
    return Status::success();
  return cudaError(applyEpilogue(scratch, operands.c, problem.outType, shape,
                                 problem.beta, operands.bias, biasType,
                                 problem.activation, stream),
                   "epilogue kernel");
}

} // namespace amk::bench
