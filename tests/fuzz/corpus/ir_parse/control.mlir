// Region ops (for, if, loop, reduce, scan), matmul and shape ops.
cuda_tile.module @kernels {
  entry @control(%arg0: tile<i32>, %arg1: tile<64x32xf16>, %arg2: tile<32x64xf16>, %arg3: tile<64x64xf32>, %arg4: tile<64x32xi8>, %arg5: tile<32x64xi8>, %arg6: tile<64x64xi32>) {
    %0 = make_token : token
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %cst_1_i32 = constant <i32: 1> : tile<i32>
    %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %for:2 = for %loopIdx in (%cst_0_i32 to %arg0, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_f32, %iterArg1 = %0) -> (tile<64x64xf32>, token) {
      %7 = mmaf %arg1, %arg2, %iterArg0 : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      %8 = join_tokens %iterArg1, %iterArg1 : token
      continue %7, %8 : tile<64x64xf32>, token
    }
    for unsigned %loopIdx in (%cst_0_i32 to %arg0, step %cst_1_i32) : tile<i32> {
      for %loopIdx_0 in (%loopIdx to %arg0, step %cst_1_i32) : tile<i32> {
        %7 = addi %loopIdx, %loopIdx_0 : tile<i32>
      }
    }
    %1 = mmaf %arg1, %arg2, %arg3 fast_acc : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
    %2 = mmai %arg4, %arg5, %arg6 signed unsigned : tile<64x32xi8>, tile<32x64xi8>, tile<64x64xi32>
    %3 = cmpi less_than %arg0, %cst_1_i32, signed : tile<i32> -> tile<i1>
    %4 = if %3 -> (tile<i32>) {
      %7 = addi %arg0, %cst_1_i32 : tile<i32>
      yield %7 : tile<i32>
    } else {
      yield %arg0 : tile<i32>
    }
    if %3 {
      %7 = print_tko "in if" -> token
    }
    if %3 {
    } else {
      %7 = print_tko "in else" -> token
    }
    %5 = loop iter_values(%arg7 = %arg0) : tile<i32> -> tile<i32> {
      %7 = cmpi greater_than %arg7, %cst_0_i32, signed : tile<i32> -> tile<i1>
      if %7 {
        break %arg7 : tile<i32>
      }
      %8 = subi %arg7, %cst_1_i32 : tile<i32>
      continue %8 : tile<i32>
    }
    loop {
      break
    }
    %reduce = reduce %1 dim=1 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %7 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %7 : tile<f32>
    }
    %reduce_1:2 = reduce %1, %2 dim=0 identities=[0xFF800000 : f32, 0 : i32] : tile<64x64xf32>, tile<64x64xi32> -> tile<64xf32>, tile<64xi32> 
    (%reduce_lhs0: tile<f32>, %reduce_rhs0: tile<f32>, %reduce_lhs1: tile<i32>, %reduce_rhs1: tile<i32>) {
      %7 = maxf %reduce_lhs0, %reduce_rhs0 : tile<f32>
      %8 = maxi %reduce_lhs1, %reduce_rhs1 signed : tile<i32>
      yield %7, %8 : tile<f32>, tile<i32>
    }
    %6 = scan %reduce dim=0 reverse=true identities=[1.000000e+00 : f32] : tile<64xf32> -> tile<64xf32> 
    (%arg7: tile<f32>, %arg8: tile<f32>) {
      %7 = mulf %arg7, %arg8  : tile<f32>
      yield %7 : tile<f32>
    }
    %reshape = reshape %6 : tile<64xf32> -> tile<1x64xf32>
    %bcast = broadcast %reshape : tile<1x64xf32> -> tile<64x64xf32>
    %7 = permute %bcast [1, 0] : tile<64x64xf32> -> tile<64x64xf32>
    %8 = cat %7, %bcast dim = 0 : tile<64x64xf32>, tile<64x64xf32> -> tile<128x64xf32>
    %9 = extract %8[%cst_0_i32, %cst_1_i32] : tile<128x64xf32> -> tile<64x32xf32>
    %10 = pack %reduce : tile<64xf32> -> tile<256xi8>
    %11 = unpack %10 : tile<256xi8> -> tile<64xf32>
    %12 = mmaf_scaled %arg4, %arg5, %arg3, %arg6, %arg6 : tile<64x32xi8>, tile<32x64xi8>, tile<64x64xf32>, tile<64x64xi32>, tile<64x64xi32>
    return
  }
}
