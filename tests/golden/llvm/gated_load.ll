; kernel gated_load (LLVM IR, rendered by Loupe)
define void @gated_load(ptr noalias %data0, ptr noalias readonly %data1, i64 %loop_start, i64 %loop_end) nounwind {
entry:
  br label %loop0.pre
loop0.pre:
  br label %loop0.head
loop0.head:
  %ridx0 = phi i64 [ %loop_start, %loop0.pre ], [ %ridx0.next, %loop0.latch ]
  %ridx0.more = icmp slt i64 %ridx0, %loop_end
  br i1 %ridx0.more, label %loop0.body, label %loop0.exit
loop0.body:
  %v0 = getelementptr inbounds float, ptr %data0, i64 %ridx0
  %v1 = add i64 %ridx0, -1
  %v2 = getelementptr inbounds float, ptr %data1, i64 %v1
  %v3 = icmp slt i64 %ridx0, 1
  %v4 = icmp ne i1 %v3, true
  %v5 = icmp slt i64 %ridx0, 5
  %v6 = and i1 %v4, %v5
  br i1 %v6, label %load1, label %load1.end
load1:
  %v7 = load float, ptr %v2, align 4
  br label %load1.end
load1.end:
  %v8 = phi float [ %v7, %load1 ], [ 0x0000000000000000, %loop0.body ]
  store float %v8, ptr %v0, align 4
  br label %loop0.latch
loop0.latch:
  %ridx0.next = add i64 %ridx0, 1
  br label %loop0.head
loop0.exit:
  ret void
}
