#include "common.cuh"

void ggml_cuda_op_add_id(ggml_backend_cuda_context & ctx, ggml_tensor * dst);
