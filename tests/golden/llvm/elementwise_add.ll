; kernel elementwise_add (LLVM IR, rendered by Loupe)
define void @elementwise_add(ptr noalias %data0, ptr noalias readonly %data1, ptr noalias readonly %data2, i64 %loop_start, i64 %loop_end) nounwind {
entry:
  br label %loop0.pre
loop0.pre:
  br label %loop0.head
loop0.head:
  %ridx0 = phi i64 [ %loop_start, %loop0.pre ], [ %ridx0.next, %loop0.latch ]
  %ridx0.more = icmp slt i64 %ridx0, %loop_end
  br i1 %ridx0.more, label %loop0.body, label %loop0.exit
loop0.body:
  %v0 = getelementptr inbounds float, ptr %data1, i64 %ridx0
  %v1 = load float, ptr %v0, align 4
  %v2 = getelementptr inbounds float, ptr %data2, i64 %ridx0
  %v3 = load float, ptr %v2, align 4
  %v4 = getelementptr inbounds float, ptr %data0, i64 %ridx0
  %v5 = fadd float %v1, %v3
  store float %v5, ptr %v4, align 4
  br label %loop0.latch
loop0.latch:
  %ridx0.next = add i64 %ridx0, 1
  br label %loop0.head
loop0.exit:
  ret void
}
