/*===- amk_runtime.h - The runtime's C interface ------------------*- C -*-===*
 *
 * Part of AMK (AutoMegaKernel).
 *
 *===----------------------------------------------------------------------===*
 *
 * Load a bundle (docs/BUNDLE.md) and launch it on device pointers, from any
 * language with a C FFI (Python's ctypes: python/amk/runtime.py). Built as
 * the shared library libamk_runtime; needs only the CUDA driver.
 *
 * Every function returning int returns 0 on success; on failure the
 * calling thread's amk_last_error() says why. Kernels load into the calling
 * thread's current CUDA context (a program that already uses CUDA, such as
 * PyTorch, has made one current); without one, the primary context of
 * device 0 is made current.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMK_RUNTIME_AMK_RUNTIME_H
#define AMK_RUNTIME_AMK_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amk_bundle amk_bundle;

/* The last failure's message on this thread ("" if none). */
const char *amk_last_error(void);

/* Loads the manifest at `path` and every kernel of it. */
int amk_bundle_load(const char *path, amk_bundle **out);
void amk_bundle_free(amk_bundle *bundle);

/* The manifest as JSON text (its family, problem, sizes and args). */
const char *amk_bundle_manifest(const amk_bundle *bundle);

/* Launches on `stream` (a CUstream; 0: the default stream) with the values
 * of the dynamic size symbols (`names[i]` = `values[i]`) and the device
 * pointers of the manifest's args, in order, each 16-byte aligned (the
 * harness proved the kernels' accesses for such buffers; others are
 * refused). Workspace is allocated by the bundle and kept for later
 * launches. */
int amk_bundle_launch(amk_bundle *bundle, int num_sizes,
                      const char *const *names, const int64_t *values,
                      int num_args, const uint64_t *args, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* AMK_RUNTIME_AMK_RUNTIME_H */
