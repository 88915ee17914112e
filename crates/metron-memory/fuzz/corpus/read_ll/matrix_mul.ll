target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
%struct._IO_FILE = type { i32, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, %struct._IO_marker*, %struct._IO_FILE*, i32, i32, i64, i16, i8, [1 x i8], i8*, i64, %struct._IO_codecvt*, %struct._IO_wide_data*, %struct._IO_FILE*, i8*, i64, i32, [20 x i8] }
%struct._IO_marker = type opaque
%struct._IO_codecvt = type opaque
%struct._IO_wide_data = type opaque
@stderr = external global %struct._IO_FILE*, align 8
@.str = private unnamed_addr constant [17 x i8] c"usage: %s N M P\0A\00", align 1
@.str.1 = private unnamed_addr constant [4 x i8] c"%g\0A\00", align 1

define dso_local void @mul(i32 noundef %n, i32 noundef %m, i32 noundef %p, double* noundef %A, double* noundef %B, double* noundef %C) #0 !dbg !98 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !104, metadata !DIExpression()), !dbg !120
  call void @llvm.dbg.value(metadata i32 %m, metadata !105, metadata !DIExpression()), !dbg !120
  call void @llvm.dbg.value(metadata i32 %p, metadata !106, metadata !DIExpression()), !dbg !120
  call void @llvm.dbg.value(metadata double* %A, metadata !107, metadata !DIExpression()), !dbg !120
  call void @llvm.dbg.value(metadata double* %B, metadata !108, metadata !DIExpression()), !dbg !120
  call void @llvm.dbg.value(metadata double* %C, metadata !109, metadata !DIExpression()), !dbg !120
  call void @llvm.dbg.value(metadata i32 0, metadata !110, metadata !DIExpression()), !dbg !121
  %cmp7 = icmp slt i32 0, %n, !dbg !122
  br i1 %cmp7, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !123

for.body.lr.ph:                                   ; preds = %entry
  %0 = sext i32 %p to i64, !dbg !123
  %1 = sext i32 %p to i64, !dbg !123
  %2 = sext i32 %m to i64, !dbg !123
  %wide.trip.count24 = zext i32 %n to i64, !dbg !122
  br label %for.body, !dbg !123

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc21
  br label %for.cond.cleanup, !dbg !123

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  br label %for.end23

for.body:                                         ; preds = %for.body.lr.ph, %for.inc21
  %indvars.iv19 = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next20, %for.inc21 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv19, metadata !110, metadata !DIExpression()), !dbg !121
  call void @llvm.dbg.value(metadata i32 0, metadata !112, metadata !DIExpression()), !dbg !124
  %cmp24 = icmp slt i32 0, %p, !dbg !125
  br i1 %cmp24, label %for.body4.lr.ph, label %for.cond.cleanup3, !dbg !126

for.body4.lr.ph:                                  ; preds = %for.body
  %wide.trip.count17 = zext i32 %p to i64, !dbg !125
  br label %for.body4, !dbg !126

for.cond1.for.cond.cleanup3_crit_edge:            ; preds = %for.inc18
  br label %for.cond.cleanup3, !dbg !126

for.cond.cleanup3:                                ; preds = %for.cond1.for.cond.cleanup3_crit_edge, %for.body
  br label %for.end20

for.body4:                                        ; preds = %for.body4.lr.ph, %for.inc18
  %indvars.iv13 = phi i64 [ 0, %for.body4.lr.ph ], [ %indvars.iv.next14, %for.inc18 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv13, metadata !112, metadata !DIExpression()), !dbg !124
  call void @llvm.dbg.value(metadata double 0.000000e+00, metadata !115, metadata !DIExpression()), !dbg !127
  call void @llvm.dbg.value(metadata i32 0, metadata !118, metadata !DIExpression()), !dbg !128
  %cmp61 = icmp slt i32 0, %m, !dbg !129
  br i1 %cmp61, label %for.body8.lr.ph, label %for.cond.cleanup7, !dbg !131

for.body8.lr.ph:                                  ; preds = %for.body4
  %wide.trip.count = zext i32 %m to i64, !dbg !129
  br label %for.body8, !dbg !131

for.cond5.for.cond.cleanup7_crit_edge:            ; preds = %for.inc
  %split = phi double [ %9, %for.inc ]
  br label %for.cond.cleanup7, !dbg !131

for.cond.cleanup7:                                ; preds = %for.cond5.for.cond.cleanup7_crit_edge, %for.body4
  %s.0.lcssa = phi double [ %split, %for.cond5.for.cond.cleanup7_crit_edge ], [ 0.000000e+00, %for.body4 ], !dbg !127
  br label %for.end

for.body8:                                        ; preds = %for.body8.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body8.lr.ph ], [ %indvars.iv.next, %for.inc ]
  %s.02 = phi double [ 0.000000e+00, %for.body8.lr.ph ], [ %9, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !118, metadata !DIExpression()), !dbg !128
  call void @llvm.dbg.value(metadata double %s.02, metadata !115, metadata !DIExpression()), !dbg !127
  %3 = mul nsw i64 %indvars.iv19, %2, !dbg !132
  %4 = add nsw i64 %3, %indvars.iv, !dbg !133
  %arrayidx = getelementptr inbounds double, double* %A, i64 %4, !dbg !134
  %5 = load double, double* %arrayidx, align 8, !dbg !134, !tbaa !60
  %6 = mul nsw i64 %indvars.iv, %0, !dbg !135
  %7 = add nsw i64 %6, %indvars.iv13, !dbg !136
  %arrayidx12 = getelementptr inbounds double, double* %B, i64 %7, !dbg !137
  %8 = load double, double* %arrayidx12, align 8, !dbg !137, !tbaa !60
  %9 = call double @llvm.fmuladd.f64(double %5, double %8, double %s.02), !dbg !138
  call void @llvm.dbg.value(metadata double %9, metadata !115, metadata !DIExpression()), !dbg !127
  br label %for.inc, !dbg !139

for.inc:                                          ; preds = %for.body8
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !140
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !118, metadata !DIExpression()), !dbg !128
  call void @llvm.dbg.value(metadata double %9, metadata !115, metadata !DIExpression()), !dbg !127
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !129
  br i1 %exitcond, label %for.body8, label %for.cond5.for.cond.cleanup7_crit_edge, !dbg !131, !llvm.loop !141

for.end:                                          ; preds = %for.cond.cleanup7
  %10 = mul nsw i64 %indvars.iv19, %1, !dbg !143
  %11 = add nsw i64 %10, %indvars.iv13, !dbg !144
  %arrayidx17 = getelementptr inbounds double, double* %C, i64 %11, !dbg !145
  store double %s.0.lcssa, double* %arrayidx17, align 8, !dbg !146, !tbaa !60
  br label %for.inc18, !dbg !147

for.inc18:                                        ; preds = %for.end
  %indvars.iv.next14 = add nuw nsw i64 %indvars.iv13, 1, !dbg !148
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next14, metadata !112, metadata !DIExpression()), !dbg !124
  %exitcond18 = icmp ne i64 %indvars.iv.next14, %wide.trip.count17, !dbg !125
  br i1 %exitcond18, label %for.body4, label %for.cond1.for.cond.cleanup3_crit_edge, !dbg !126, !llvm.loop !149

for.end20:                                        ; preds = %for.cond.cleanup3
  br label %for.inc21, !dbg !150

for.inc21:                                        ; preds = %for.end20
  %indvars.iv.next20 = add nuw nsw i64 %indvars.iv19, 1, !dbg !151
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next20, metadata !110, metadata !DIExpression()), !dbg !121
  %exitcond25 = icmp ne i64 %indvars.iv.next20, %wide.trip.count24, !dbg !122
  br i1 %exitcond25, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !123, !llvm.loop !152

for.end23:                                        ; preds = %for.cond.cleanup
  ret void, !dbg !154
}
