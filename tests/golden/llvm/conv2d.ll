; kernel conv2d (LLVM IR, rendered by Loupe)
define void @conv2d(ptr noalias %data0, i64 %loop_start, i64 %loop_end) nounwind {
entry:
  %acc0 = alloca float
  br label %loop0.pre
loop0.pre:
  br label %loop0.head
loop0.head:
  %ridx0 = phi i64 [ %loop_start, %loop0.pre ], [ %ridx0.next, %loop0.latch ]
  %ridx0.more = icmp slt i64 %ridx0, %loop_end
  br i1 %ridx0.more, label %loop0.body, label %loop0.exit
loop0.body:
  %v0 = mul i64 %ridx0, 16
  %v1 = mul i64 %ridx0, 18
  br label %loop1.pre
loop1.pre:
  br label %loop1.head
loop1.head:
  %ridx1 = phi i64 [ 0, %loop1.pre ], [ %ridx1.next, %loop1.latch ]
  %ridx1.more = icmp slt i64 %ridx1, 4
  br i1 %ridx1.more, label %loop1.body, label %loop1.exit
loop1.body:
  %v2 = mul i64 %ridx1, 4
  %v3 = add i64 %v0, %v2
  %v4 = mul i64 %ridx1, 6
  br label %loop2.pre
loop2.pre:
  br label %loop2.head
loop2.head:
  %ridx2 = phi i64 [ 0, %loop2.pre ], [ %ridx2.next, %loop2.latch ]
  %ridx2.more = icmp slt i64 %ridx2, 4
  br i1 %ridx2.more, label %loop2.body, label %loop2.exit
loop2.body:
  %v5 = add i64 %v3, %ridx2
  %v6 = getelementptr inbounds float, ptr %data0, i64 %v5
  store float 0x0000000000000000, ptr %acc0
  %v7 = add i64 %v4, %ridx2
  br label %loop3.pre
loop3.pre:
  br label %loop3.head
loop3.head:
  %ridx3 = phi i64 [ 0, %loop3.pre ], [ %ridx3.next, %loop3.latch ]
  %ridx3.more = icmp slt i64 %ridx3, 2
  br i1 %ridx3.more, label %loop3.body, label %loop3.exit
loop3.body:
  %v8 = mul i64 %ridx3, 36
  %v9 = add i64 %v7, %v8
  %v10 = mul i64 %ridx3, 9
  %v11 = add i64 %v1, %v10
  br label %loop4.pre
loop4.pre:
  br label %loop4.head
loop4.head:
  %ridx4 = phi i64 [ 0, %loop4.pre ], [ %ridx4.next, %loop4.latch ]
  %ridx4.more = icmp slt i64 %ridx4, 3
  br i1 %ridx4.more, label %loop4.body, label %loop4.exit
loop4.body:
  %v12 = mul i64 %ridx4, 6
  %v13 = add i64 %v9, %v12
  %v14 = mul i64 %ridx4, 3
  %v15 = add i64 %v11, %v14
  br label %loop5.pre
loop5.pre:
  br label %loop5.head
loop5.head:
  %ridx5 = phi i64 [ 0, %loop5.pre ], [ %ridx5.next, %loop5.latch ]
  %ridx5.more = icmp slt i64 %ridx5, 3
  br i1 %ridx5.more, label %loop5.body, label %loop5.exit
loop5.body:
  %v16 = add i64 %v13, %ridx5
  %v17 = trunc i64 %v16 to i32
  %v18 = mul i32 %v17, 331
  %v19 = add i32 %v18, 1
  %v20 = srem i32 %v19, 1009
  %v21 = sitofp i32 %v20 to float
  %v22 = call float @llvm.fmuladd.f32(float %v21, float 0x3FC24924A0000000, float 0xC049000000000000)
  %v23 = add i64 %v15, %ridx5
  %v24 = trunc i64 %v23 to i32
  %v25 = mul i32 %v24, 331
  %v26 = add i32 %v25, 2
  %v27 = srem i32 %v26, 1009
  %v28 = sitofp i32 %v27 to float
  %v29 = call float @llvm.fmuladd.f32(float %v28, float 0x3FC24924A0000000, float 0xC049000000000000)
  %v30 = load float, ptr %acc0
  %v31 = call float @llvm.fmuladd.f32(float %v22, float %v29, float %v30)
  store float %v31, ptr %acc0
  br label %loop5.latch
loop5.latch:
  %ridx5.next = add i64 %ridx5, 1
  br label %loop5.head
loop5.exit:
  br label %loop4.latch
loop4.latch:
  %ridx4.next = add i64 %ridx4, 1
  br label %loop4.head
loop4.exit:
  br label %loop3.latch
loop3.latch:
  %ridx3.next = add i64 %ridx3, 1
  br label %loop3.head
loop3.exit:
  %v32 = load float, ptr %acc0
  store float %v32, ptr %v6, align 4
  br label %loop2.latch
loop2.latch:
  %ridx2.next = add i64 %ridx2, 1
  br label %loop2.head
loop2.exit:
  br label %loop1.latch
loop1.latch:
  %ridx1.next = add i64 %ridx1, 1
  br label %loop1.head
loop1.exit:
  br label %loop0.latch
loop0.latch:
  %ridx0.next = add i64 %ridx0, 1
  br label %loop0.head
loop0.exit:
  ret void
}
declare float @llvm.fmuladd.f32(float, float, float)
