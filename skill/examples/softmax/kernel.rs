// softmax: row-wise, one row per step of a persistent tile block (reference:
// softmax.py, ct.Constant TILE_SIZE folded to 1024 in reference.mlir).
// View/TMA IR, so input and output are read-only &Tensor (R12, R43). The
// grid-stride loop is the reference's `for row in range(pid, n_rows,
// num_programs)`: the host launches a capped grid, so every block must
// walk its rows (a one-row-per-block kernel would leave rows unwritten).
#[cutile::module]
pub mod softmax_module {
    use cutile::core::*;
    use cutile::prelude::PartitionMut;

    #[cutile::entry(optimization_hints = (sm_100 = (occupancy = 4,),))]
    pub unsafe fn softmax_kernel<E: ElementType, const TILE_SIZE: i32>(
        output: &Tensor<E, { [-1, -1] }>,
        input: &Tensor<E, { [-1, -1] }>,
        n_rows: i32,
    ) {
        let (pid, _by, _bz) = get_tile_block_id();
        let (num_programs, _gy, _gz) = get_num_tile_blocks();
        // padding_mode=NEG_INF: padded columns never win the max, and
        // exp2(-inf) = 0 keeps them out of the sum
        let src = make_partition_view(input, const_shape![1, TILE_SIZE], padding::NegInf, dim_map::Identity,
                                      get_tensor_token(input));
        let mut dst = unsafe { output.partition_full_mut(const_shape![1, TILE_SIZE]) };
        // log2(e) as a plain decimal literal (R2): exp(x) = exp2(x * log2(e))
        let log2e: Tile<f32, { [1, TILE_SIZE] }> = constant(1.4426950408889634f32, const_shape![1, TILE_SIZE]);
        for row in (pid..n_rows).step_by(num_programs as usize) {
            let t: Tile<E, { [1, TILE_SIZE] }> =
                load_view_tko(&src, [row, 0], ordering::Weak, scope::TileBlock, None, tma::Enabled);
            let x: Tile<f32, { [1, TILE_SIZE] }> = convert_tile(t);
            let m: Tile<f32, { [1] }> = reduce_max(x, 1);
            let m2: Tile<f32, { [1, 1] }> = m.reshape(const_shape![1, 1]);
            let mb: Tile<f32, { [1, TILE_SIZE] }> = m2.broadcast(const_shape![1, TILE_SIZE]);
            // plain subf and mulf in the reference: Rust operators, default modes (R26)
            let d: Tile<f32, { [1, TILE_SIZE] }> = x - mb;
            let dl: Tile<f32, { [1, TILE_SIZE] }> = d * log2e;
            let e: Tile<f32, { [1, TILE_SIZE] }> = exp2(dl, ftz::Enabled);
            let s: Tile<f32, { [1] }> = reduce_sum(e, 1);
            let s2: Tile<f32, { [1, 1] }> = s.reshape(const_shape![1, 1]);
            let sb: Tile<f32, { [1, TILE_SIZE] }> = s2.broadcast(const_shape![1, TILE_SIZE]);
            // ct.truediv(..., flush_to_zero=True, rounding_mode=APPROX) (R19)
            let y: Tile<f32, { [1, TILE_SIZE] }> = true_div(e, sb);
            let yo: Tile<E, { [1, TILE_SIZE] }> = convert_tile(y);
            let _tok = unsafe {
                store_view_tko_mut(&mut dst, yo, [row, 0], ordering::Weak, scope::TileBlock, None, tma::Enabled)
            };
        }
    }
}
