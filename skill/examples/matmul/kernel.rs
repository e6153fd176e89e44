// matmul: C = A @ B, one BM x BN output tile per tile block (reference:
// the ct.Constant BM, BN, BK of matmul.py, folded into reference.mlir).
// View/TMA IR, so every tensor, the output included, is a read-only
// &Tensor (R12, R43); the output is written through partition_full_mut.
#[cutile::module]
pub mod matmul_module {
    use cutile::core::*;
    use cutile::prelude::PartitionMut;

    #[cutile::entry()]
    pub unsafe fn matmul_kernel<E: ElementType, const BM: i32, const BN: i32, const BK: i32>(
        a: &Tensor<E, { [-1, -1] }>,
        b: &Tensor<E, { [-1, -1] }>,
        c: &Tensor<E, { [-1, -1] }>,
    ) {
        let (bid_m, bid_n, _bid_z) = get_tile_block_id();
        let k: i32 = a.shape()[1];
        // ct.cdiv(K, BK): a ceil-div, or the last partial K tile is lost (R45)
        let num_k: i32 = (k + BK - 1) / BK;
        let a_part = a.partition(const_shape![BM, BK]);
        let b_part = b.partition(const_shape![BK, BN]);
        let mut acc: Tile<f32, { [BM, BN] }> = constant(0.0f32, const_shape![BM, BN]);
        for kk in 0i32..num_k {
            let ta: Tile<E, { [BM, BK] }> =
                load_view_tko(&a_part, [bid_m, kk], ordering::Weak, scope::TileBlock, None, tma::Enabled);
            let tb: Tile<E, { [BK, BN] }> =
                load_view_tko(&b_part, [kk, bid_n], ordering::Weak, scope::TileBlock, None, tma::Enabled);
            acc = mmaf(ta, tb, acc);
        }
        let out: Tile<E, { [BM, BN] }> = convert_tile(acc);
        let mut c_part = unsafe { c.partition_full_mut(const_shape![BM, BN]) };
        let _tok = unsafe {
            store_view_tko_mut(&mut c_part, out, [bid_m, bid_n], ordering::Weak, scope::TileBlock, None, tma::Enabled)
        };
    }
}
