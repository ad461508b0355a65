#include <cstdio>
#include <cuda_runtime.h>
__global__ void stream_copy(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}
__global__ void fma_chain(float* out, int iters) {
  float x = threadIdx.x, y = 1.0001f;
  for (int i = 0; i < iters; i++) { x = fmaf(x, y, 0.5f); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
__global__ void chase(const unsigned* next, unsigned* out, int steps) {
  unsigned p = threadIdx.x * 33;
  for (int i = 0; i < steps; i++) p = next[p];
  out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}
int main() {
  size_t n = 1 << 26; float4 *a, *b; unsigned *nx, *o;
  cudaMalloc(&a, n * 16); cudaMalloc(&b, n * 16); cudaMalloc(&nx, 64u << 20); cudaMalloc(&o, 1 << 24);
  cudaMemset(nx, 0, 64u << 20);
  cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
  for (int r = 0; r < 3; r++) {
    cudaEventRecord(s); stream_copy<<<132 * 8, 256>>>(a, b, n); cudaEventRecord(e); cudaEventSynchronize(e);
    float ms; cudaEventElapsedTime(&ms, s, e); printf("copy %.3f ms %.1f GB/s\n", ms, 2.0 * n * 16 / ms / 1e6);
  }
  fma_chain<<<132 * 4, 256>>>((float*)o, 4096);
  chase<<<132, 64>>>(nx, o, 1024);
  printf("sync %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
