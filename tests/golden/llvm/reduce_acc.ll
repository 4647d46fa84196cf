; kernel reduce_acc (LLVM IR, rendered by Loupe)
define void @reduce_acc(ptr noalias %data0, ptr noalias readonly %data1, i64 %loop_start, i64 %loop_end) nounwind {
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
  store float 0x0000000000000000, ptr %acc0
  br label %loop1.pre
loop1.pre:
  br label %loop1.head
loop1.head:
  %ridx1 = phi i64 [ 0, %loop1.pre ], [ %ridx1.next, %loop1.latch ]
  %ridx1.more = icmp slt i64 %ridx1, 8
  br i1 %ridx1.more, label %loop1.body, label %loop1.exit
loop1.body:
  %v0 = mul i64 %ridx0, 8
  %v1 = add i64 %v0, %ridx1
  %v2 = getelementptr inbounds float, ptr %data1, i64 %v1
  %v3 = load float, ptr %v2, align 4
  %v4 = load float, ptr %acc0
  %v5 = fadd float %v4, %v3
  store float %v5, ptr %acc0
  br label %loop1.latch
loop1.latch:
  %ridx1.next = add i64 %ridx1, 1
  br label %loop1.head
loop1.exit:
  %v6 = getelementptr inbounds float, ptr %data0, i64 %ridx0
  %v7 = load float, ptr %acc0
  store float %v7, ptr %v6, align 4
  br label %loop0.latch
loop0.latch:
  %ridx0.next = add i64 %ridx0, 1
  br label %loop0.head
loop0.exit:
  ret void
}
