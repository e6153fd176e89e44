"cuda_tile.module"() <{sym_name = "kernels"}> ({
  "cuda_tile.entry"() <{function_type = (!cuda_tile.tile<16xf32>, !cuda_tile.tile<16xf32>, !cuda_tile.tile<16xptr<f32>>, !cuda_tile.tile<16xi1>) -> (), sym_name = "generic"}> ({
  ^bb0(%arg0: !cuda_tile.tile<16xf32>, %arg1: !cuda_tile.tile<16xf32>, %arg2: !cuda_tile.tile<16xptr<f32>>, %arg3: !cuda_tile.tile<16xi1>):
    %0 = "cuda_tile.addf"(%arg0, %arg1) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<16xf32>, !cuda_tile.tile<16xf32>) -> !cuda_tile.tile<16xf32>
    %1 = "cuda_tile.divf"(%0, %arg1) <{flush_to_zero, rounding_mode = #cuda_tile.rounding<approx>}> : (!cuda_tile.tile<16xf32>, !cuda_tile.tile<16xf32>) -> !cuda_tile.tile<16xf32>
    %2 = "cuda_tile.cmpf"(%0, %1) <{comparison_ordering = #cuda_tile.comparison_ordering<ordered>, comparison_predicate = #cuda_tile.comparison_predicate<less_than>}> : (!cuda_tile.tile<16xf32>, !cuda_tile.tile<16xf32>) -> !cuda_tile.tile<16xi1>
    %3 = "cuda_tile.constant"() <{value = dense<1.000000e+00> : !cuda_tile.tile<16xf32>}> : () -> !cuda_tile.tile<16xf32>
    %4 = "cuda_tile.make_token"() : () -> !cuda_tile.token
    %5:2 = "cuda_tile.load_ptr_tko"(%arg2, %arg3, %4) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!cuda_tile.tile<16xptr<f32>>, !cuda_tile.tile<16xi1>, !cuda_tile.token) -> (!cuda_tile.tile<16xf32>, !cuda_tile.token)
    %6 = "cuda_tile.select"(%2, %5#0, %3) : (!cuda_tile.tile<16xi1>, !cuda_tile.tile<16xf32>, !cuda_tile.tile<16xf32>) -> !cuda_tile.tile<16xf32>
    %7 = "cuda_tile.reduce"(%6) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%arg4: !cuda_tile.tile<f32>, %arg5: !cuda_tile.tile<f32>):
      %9 = "cuda_tile.addf"(%arg4, %arg5) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>
      "cuda_tile.yield"(%9) : (!cuda_tile.tile<f32>) -> ()
    }) : (!cuda_tile.tile<16xf32>) -> !cuda_tile.tile<f32>
    %8 = "cuda_tile.store_ptr_tko"(%arg2, %6, %5#1) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!cuda_tile.tile<16xptr<f32>>, !cuda_tile.tile<16xf32>, !cuda_tile.token) -> !cuda_tile.token
    "cuda_tile.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
