/**
 * gmlab, a GPU memory laboratory, from Java: the experiments of the CUDA C++
 * Best Practices Guide ("Device Memory Spaces") run on your own GPU, measured
 * and explained ({@link org.gmlab.Context#run}), the same kernels as
 * operations on device buffers ({@link org.gmlab.Buffer}), and saved runs read
 * without a GPU ({@link org.gmlab.Run#load}).
 *
 * <p>Every failure of the library throws {@link org.gmlab.GmlabException}
 * with its {@link org.gmlab.Status}; the handles ({@link org.gmlab.Context},
 * {@link org.gmlab.Buffer}, {@link org.gmlab.Result}) are
 * {@link java.lang.AutoCloseable}.
 */
package org.gmlab;
