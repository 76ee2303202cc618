#include "common.cuh"

#define CUDA_DIAG_BLOCK_SIZE 256

void ggml_cuda_op_diag(ggml_backend_cuda_context & ctx, ggml_tensor * dst);
