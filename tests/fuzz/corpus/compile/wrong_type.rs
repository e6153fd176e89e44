// A kernel with the mistake cutile 0.2.0 makes an E0308 of: load_view_tko
// bound as (Tile, Token), as older cutile-rs returned it.
#[cutile::module]
pub mod wrong_module {
    use cutile::core::*;

    #[cutile::entry()]
    pub unsafe fn copy_rows<E: ElementType, const BLOCK: i32>(
        out: &Tensor<E, { [-1, -1] }>,
        x: &Tensor<E, { [-1, -1] }>,
    ) {
        let row: i32 = get_tile_block_id().0;
        let tok: Token = get_tensor_token(x);
        let part = make_partition_view(x, const_shape![1, BLOCK], padding::Zero, dim_map::Identity, tok);
        let (t, _t_tok): (Tile<E, { [1, BLOCK] }>, Token) =
            load_view_tko(&part, [row, 0i32], ordering::Weak, scope::TileBlock, None, tma::Enabled);
        let mut out_part = unsafe { out.partition_full_mut(const_shape![1, BLOCK]) };
        let _tok: Token = unsafe {
            store_view_tko_mut(&mut out_part, t, [row, 0i32], ordering::Weak, scope::TileBlock, None, tma::Enabled)
        };
    }
}
