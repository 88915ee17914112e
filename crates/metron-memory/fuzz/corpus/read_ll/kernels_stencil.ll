target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
%struct._IO_FILE = type { i32, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, %struct._IO_marker*, %struct._IO_FILE*, i32, i32, i64, i16, i8, [1 x i8], i8*, i64, %struct._IO_codecvt*, %struct._IO_wide_data*, %struct._IO_FILE*, i8*, i64, i32, [20 x i8] }
%struct._IO_marker = type opaque
%struct._IO_codecvt = type opaque
%struct._IO_wide_data = type opaque
@G = dso_local global [128 x [128 x double]] zeroinitializer, align 16, !dbg !0
@H = dso_local global [128 x [128 x double]] zeroinitializer, align 16, !dbg !15
@total = dso_local global double 0.000000e+00, align 8, !dbg !20
@stderr = external global %struct._IO_FILE*, align 8
@.str = private unnamed_addr constant [53 x i8] c"usage: %s matmul|stencil|triangular|calls|branchy N\0A\00", align 1
@.str.1 = private unnamed_addr constant [20 x i8] c"N must be in 0..%d\0A\00", align 1
@.str.2 = private unnamed_addr constant [7 x i8] c"matmul\00", align 1
@.str.3 = private unnamed_addr constant [8 x i8] c"stencil\00", align 1
@.str.4 = private unnamed_addr constant [11 x i8] c"triangular\00", align 1
@.str.5 = private unnamed_addr constant [6 x i8] c"calls\00", align 1
@.str.6 = private unnamed_addr constant [8 x i8] c"branchy\00", align 1
@.str.7 = private unnamed_addr constant [19 x i8] c"unknown kernel %s\0A\00", align 1
@.str.8 = private unnamed_addr constant [7 x i8] c"%g %g\0A\00", align 1

define dso_local void @stencil(i32 noundef %n) #0 !dbg !89 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !93, metadata !DIExpression()), !dbg !104
  call void @llvm.dbg.value(metadata i32 1, metadata !94, metadata !DIExpression()), !dbg !105
  %sub = sub i32 %n, 1, !dbg !106
  %cmp4 = icmp slt i32 1, %sub, !dbg !107
  br i1 %cmp4, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !108

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count17 = zext i32 %sub to i64, !dbg !107
  br label %for.body, !dbg !108

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc35
  br label %for.cond.cleanup, !dbg !108

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  br label %for.end37

for.body:                                         ; preds = %for.body.lr.ph, %for.inc35
  %indvars.iv12 = phi i64 [ 1, %for.body.lr.ph ], [ %indvars.iv.next13, %for.inc35 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv12, metadata !94, metadata !DIExpression()), !dbg !105
  call void @llvm.dbg.value(metadata i32 1, metadata !96, metadata !DIExpression()), !dbg !109
  %sub2 = sub nsw i32 %n, 1, !dbg !110
  %cmp31 = icmp slt i32 1, %sub2, !dbg !112
  br i1 %cmp31, label %for.body5.lr.ph, label %for.cond.cleanup4, !dbg !113

for.body5.lr.ph:                                  ; preds = %for.body
  %wide.trip.count = zext i32 %sub to i64, !dbg !112
  br label %for.body5, !dbg !113

for.cond1.for.cond.cleanup4_crit_edge:            ; preds = %for.inc
  br label %for.cond.cleanup4, !dbg !113

for.cond.cleanup4:                                ; preds = %for.cond1.for.cond.cleanup4_crit_edge, %for.body
  br label %for.end

for.body5:                                        ; preds = %for.body5.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 1, %for.body5.lr.ph ], [ %indvars.iv.next, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !96, metadata !DIExpression()), !dbg !109
  %arrayidx = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 %indvars.iv12, !dbg !114
  %arrayidx7 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx, i64 0, i64 %indvars.iv, !dbg !114
  %0 = load double, double* %arrayidx7, align 8, !dbg !114, !tbaa !63
  %1 = sub nuw nsw i64 %indvars.iv12, 1, !dbg !115
  %arrayidx10 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 %1, !dbg !116
  %arrayidx12 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx10, i64 0, i64 %indvars.iv, !dbg !116
  %2 = load double, double* %arrayidx12, align 8, !dbg !116, !tbaa !63
  %add = fadd double %0, %2, !dbg !117
  %3 = add nuw nsw i64 %indvars.iv12, 1, !dbg !118
  %arrayidx15 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 %3, !dbg !119
  %arrayidx17 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx15, i64 0, i64 %indvars.iv, !dbg !119
  %4 = load double, double* %arrayidx17, align 8, !dbg !119, !tbaa !63
  %add18 = fadd double %add, %4, !dbg !120
  %arrayidx20 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 %indvars.iv12, !dbg !121
  %5 = sub nuw nsw i64 %indvars.iv, 1, !dbg !122
  %arrayidx23 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx20, i64 0, i64 %5, !dbg !121
  %6 = load double, double* %arrayidx23, align 8, !dbg !121, !tbaa !63
  %add24 = fadd double %add18, %6, !dbg !123
  %arrayidx26 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 %indvars.iv12, !dbg !124
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !125
  %arrayidx29 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx26, i64 0, i64 %indvars.iv.next, !dbg !124
  %7 = load double, double* %arrayidx29, align 8, !dbg !124, !tbaa !63
  %add30 = fadd double %add24, %7, !dbg !126
  %mul = fmul double 2.000000e-01, %add30, !dbg !127
  %arrayidx32 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @H, i64 0, i64 %indvars.iv12, !dbg !128
  %arrayidx34 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx32, i64 0, i64 %indvars.iv, !dbg !128
  store double %mul, double* %arrayidx34, align 8, !dbg !129, !tbaa !63
  br label %for.inc, !dbg !128

for.inc:                                          ; preds = %for.body5
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !96, metadata !DIExpression()), !dbg !109
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !112
  br i1 %exitcond, label %for.body5, label %for.cond1.for.cond.cleanup4_crit_edge, !dbg !113, !llvm.loop !130

for.end:                                          ; preds = %for.cond.cleanup4
  br label %for.inc35, !dbg !131

for.inc35:                                        ; preds = %for.end
  %indvars.iv.next13 = add nuw nsw i64 %indvars.iv12, 1, !dbg !132
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next13, metadata !94, metadata !DIExpression()), !dbg !105
  %exitcond18 = icmp ne i64 %indvars.iv.next13, %wide.trip.count17, !dbg !107
  br i1 %exitcond18, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !108, !llvm.loop !133

for.end37:                                        ; preds = %for.cond.cleanup
  call void @llvm.dbg.value(metadata i32 1, metadata !99, metadata !DIExpression()), !dbg !135
  %sub40 = sub nsw i32 %n, 1, !dbg !136
  %cmp418 = icmp slt i32 1, %sub40, !dbg !137
  br i1 %cmp418, label %for.body43.lr.ph, label %for.cond.cleanup42, !dbg !138

for.body43.lr.ph:                                 ; preds = %for.end37
  %wide.trip.count27 = zext i32 %sub to i64, !dbg !137
  br label %for.body43, !dbg !138

for.cond39.for.cond.cleanup42_crit_edge:          ; preds = %for.inc61
  br label %for.cond.cleanup42, !dbg !138

for.cond.cleanup42:                               ; preds = %for.cond39.for.cond.cleanup42_crit_edge, %for.end37
  br label %for.end63

for.body43:                                       ; preds = %for.body43.lr.ph, %for.inc61
  %indvars.iv24 = phi i64 [ 1, %for.body43.lr.ph ], [ %indvars.iv.next25, %for.inc61 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv24, metadata !99, metadata !DIExpression()), !dbg !135
  call void @llvm.dbg.value(metadata i32 1, metadata !101, metadata !DIExpression()), !dbg !139
  %sub46 = sub nsw i32 %n, 1, !dbg !140
  %cmp476 = icmp slt i32 1, %sub46, !dbg !142
  br i1 %cmp476, label %for.body49.lr.ph, label %for.cond.cleanup48, !dbg !143

for.body49.lr.ph:                                 ; preds = %for.body43
  %wide.trip.count22 = zext i32 %sub to i64, !dbg !142
  br label %for.body49, !dbg !143

for.cond45.for.cond.cleanup48_crit_edge:          ; preds = %for.inc58
  br label %for.cond.cleanup48, !dbg !143

for.cond.cleanup48:                               ; preds = %for.cond45.for.cond.cleanup48_crit_edge, %for.body43
  br label %for.end60

for.body49:                                       ; preds = %for.body49.lr.ph, %for.inc58
  %indvars.iv19 = phi i64 [ 1, %for.body49.lr.ph ], [ %indvars.iv.next20, %for.inc58 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv19, metadata !101, metadata !DIExpression()), !dbg !139
  %arrayidx51 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @H, i64 0, i64 %indvars.iv24, !dbg !144
  %arrayidx53 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx51, i64 0, i64 %indvars.iv19, !dbg !144
  %8 = load double, double* %arrayidx53, align 8, !dbg !144, !tbaa !63
  %arrayidx55 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 %indvars.iv24, !dbg !145
  %arrayidx57 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx55, i64 0, i64 %indvars.iv19, !dbg !145
  store double %8, double* %arrayidx57, align 8, !dbg !146, !tbaa !63
  br label %for.inc58, !dbg !145

for.inc58:                                        ; preds = %for.body49
  %indvars.iv.next20 = add nuw nsw i64 %indvars.iv19, 1, !dbg !147
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next20, metadata !101, metadata !DIExpression()), !dbg !139
  %exitcond23 = icmp ne i64 %indvars.iv.next20, %wide.trip.count22, !dbg !142
  br i1 %exitcond23, label %for.body49, label %for.cond45.for.cond.cleanup48_crit_edge, !dbg !143, !llvm.loop !148

for.end60:                                        ; preds = %for.cond.cleanup48
  br label %for.inc61, !dbg !149

for.inc61:                                        ; preds = %for.end60
  %indvars.iv.next25 = add nuw nsw i64 %indvars.iv24, 1, !dbg !150
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next25, metadata !99, metadata !DIExpression()), !dbg !135
  %exitcond28 = icmp ne i64 %indvars.iv.next25, %wide.trip.count27, !dbg !137
  br i1 %exitcond28, label %for.body43, label %for.cond39.for.cond.cleanup42_crit_edge, !dbg !138, !llvm.loop !151

for.end63:                                        ; preds = %for.cond.cleanup42
  ret void, !dbg !153
}
