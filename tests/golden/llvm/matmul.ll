; kernel matmul (LLVM IR, rendered by Loupe)
define void @matmul(ptr noalias %data0, i64 %loop_start, i64 %loop_end) nounwind {
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
  %v0 = mul i64 %ridx0, 3
  %v1 = mul i64 %ridx0, 8
  br label %loop1.pre
loop1.pre:
  br label %loop1.head
loop1.head:
  %ridx1 = phi i64 [ 0, %loop1.pre ], [ %ridx1.next, %loop1.latch ]
  %ridx1.more = icmp slt i64 %ridx1, 3
  br i1 %ridx1.more, label %loop1.body, label %loop1.exit
loop1.body:
  %v2 = add i64 %v0, %ridx1
  %v3 = getelementptr inbounds float, ptr %data0, i64 %v2
  store float 0x0000000000000000, ptr %acc0
  br label %loop2.pre
loop2.pre:
  br label %loop2.head
loop2.head:
  %ridx2 = phi i64 [ 0, %loop2.pre ], [ %ridx2.next, %loop2.latch ]
  %ridx2.more = icmp slt i64 %ridx2, 8
  br i1 %ridx2.more, label %loop2.body, label %loop2.exit
loop2.body:
  %v4 = add i64 %v1, %ridx2
  %v5 = trunc i64 %v4 to i32
  %v6 = mul i32 %v5, 331
  %v7 = add i32 %v6, 1
  %v8 = srem i32 %v7, 1009
  %v9 = sitofp i32 %v8 to float
  %v10 = call float @llvm.fmuladd.f32(float %v9, float 0x3FC24924A0000000, float 0xC049000000000000)
  %v11 = mul i64 %ridx2, 3
  %v12 = add i64 %ridx1, %v11
  %v13 = trunc i64 %v12 to i32
  %v14 = mul i32 %v13, 331
  %v15 = add i32 %v14, 2
  %v16 = srem i32 %v15, 1009
  %v17 = sitofp i32 %v16 to float
  %v18 = call float @llvm.fmuladd.f32(float %v17, float 0x3FC24924A0000000, float 0xC049000000000000)
  %v19 = load float, ptr %acc0
  %v20 = call float @llvm.fmuladd.f32(float %v10, float %v18, float %v19)
  store float %v20, ptr %acc0
  br label %loop2.latch
loop2.latch:
  %ridx2.next = add i64 %ridx2, 1
  br label %loop2.head
loop2.exit:
  %v21 = load float, ptr %acc0
  store float %v21, ptr %v3, align 4
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
