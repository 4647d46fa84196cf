; kernel r_4_i (LLVM IR, rendered by Loupe)
define void @r_4_i(ptr noalias %data0, ptr noalias readonly %data1, ptr noalias readonly %data2, i64 %var.i, i64 %loop_start, i64 %loop_end) nounwind {
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
  %v0 = getelementptr inbounds float, ptr %data0, i64 %ridx0
  store float 0x0000000000000000, ptr %acc0
  %v1 = mul i64 %ridx0, 10
  br label %loop1.pre
loop1.pre:
  br label %loop1.head
loop1.head:
  %ridx1 = phi i64 [ 0, %loop1.pre ], [ %ridx1.next, %loop1.latch ]
  %ridx1.more = icmp slt i64 %ridx1, %var.i
  br i1 %ridx1.more, label %loop1.body, label %loop1.exit
loop1.body:
  %v2 = add i64 %v1, %ridx1
  %v3 = getelementptr inbounds float, ptr %data1, i64 %v2
  %v4 = load float, ptr %v3, align 4
  %v5 = mul i64 %ridx1, 4
  %v6 = add i64 %ridx0, %v5
  %v7 = getelementptr inbounds float, ptr %data2, i64 %v6
  %v8 = load float, ptr %v7, align 4
  %v9 = load float, ptr %acc0
  %v10 = call float @llvm.fmuladd.f32(float %v4, float %v8, float %v9)
  store float %v10, ptr %acc0
  br label %loop1.latch
loop1.latch:
  %ridx1.next = add i64 %ridx1, 1
  br label %loop1.head
loop1.exit:
  %v11 = load float, ptr %acc0
  store float %v11, ptr %v0, align 4
  br label %loop0.latch
loop0.latch:
  %ridx0.next = add i64 %ridx0, 1
  br label %loop0.head
loop0.exit:
  ret void
}
declare float @llvm.fmuladd.f32(float, float, float)
