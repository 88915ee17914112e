; ModuleID = '/tmp/tmp.JZbDH6ToZh/kernels.raw.ll'
source_filename = "examples/memory/kernels.c"
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

; Function Attrs: nounwind uwtable
define dso_local void @matmul(i32 noundef %n, double* noundef %A, double* noundef %B, double* noundef %C) #0 !dbg !29 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !34, metadata !DIExpression()), !dbg !48
  call void @llvm.dbg.value(metadata double* %A, metadata !35, metadata !DIExpression()), !dbg !48
  call void @llvm.dbg.value(metadata double* %B, metadata !36, metadata !DIExpression()), !dbg !48
  call void @llvm.dbg.value(metadata double* %C, metadata !37, metadata !DIExpression()), !dbg !48
  call void @llvm.dbg.value(metadata i32 0, metadata !38, metadata !DIExpression()), !dbg !49
  %cmp7 = icmp slt i32 0, %n, !dbg !50
  br i1 %cmp7, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !51

for.body.lr.ph:                                   ; preds = %entry
  %0 = sext i32 %n to i64, !dbg !51
  %1 = sext i32 %n to i64, !dbg !51
  %2 = sext i32 %n to i64, !dbg !51
  %wide.trip.count24 = zext i32 %n to i64, !dbg !50
  br label %for.body, !dbg !51

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc21
  br label %for.cond.cleanup, !dbg !51

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  br label %for.end23

for.body:                                         ; preds = %for.body.lr.ph, %for.inc21
  %indvars.iv19 = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next20, %for.inc21 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv19, metadata !38, metadata !DIExpression()), !dbg !49
  call void @llvm.dbg.value(metadata i32 0, metadata !40, metadata !DIExpression()), !dbg !52
  %cmp24 = icmp slt i32 0, %n, !dbg !53
  br i1 %cmp24, label %for.body4.lr.ph, label %for.cond.cleanup3, !dbg !54

for.body4.lr.ph:                                  ; preds = %for.body
  %wide.trip.count17 = zext i32 %n to i64, !dbg !53
  br label %for.body4, !dbg !54

for.cond1.for.cond.cleanup3_crit_edge:            ; preds = %for.inc18
  br label %for.cond.cleanup3, !dbg !54

for.cond.cleanup3:                                ; preds = %for.cond1.for.cond.cleanup3_crit_edge, %for.body
  br label %for.end20

for.body4:                                        ; preds = %for.body4.lr.ph, %for.inc18
  %indvars.iv13 = phi i64 [ 0, %for.body4.lr.ph ], [ %indvars.iv.next14, %for.inc18 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv13, metadata !40, metadata !DIExpression()), !dbg !52
  call void @llvm.dbg.value(metadata double 0.000000e+00, metadata !43, metadata !DIExpression()), !dbg !55
  call void @llvm.dbg.value(metadata i32 0, metadata !46, metadata !DIExpression()), !dbg !56
  %cmp61 = icmp slt i32 0, %n, !dbg !57
  br i1 %cmp61, label %for.body8.lr.ph, label %for.cond.cleanup7, !dbg !59

for.body8.lr.ph:                                  ; preds = %for.body4
  %wide.trip.count = zext i32 %n to i64, !dbg !57
  br label %for.body8, !dbg !59

for.cond5.for.cond.cleanup7_crit_edge:            ; preds = %for.inc
  %split = phi double [ %9, %for.inc ]
  br label %for.cond.cleanup7, !dbg !59

for.cond.cleanup7:                                ; preds = %for.cond5.for.cond.cleanup7_crit_edge, %for.body4
  %s.0.lcssa = phi double [ %split, %for.cond5.for.cond.cleanup7_crit_edge ], [ 0.000000e+00, %for.body4 ], !dbg !55
  br label %for.end

for.body8:                                        ; preds = %for.body8.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body8.lr.ph ], [ %indvars.iv.next, %for.inc ]
  %s.02 = phi double [ 0.000000e+00, %for.body8.lr.ph ], [ %9, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !46, metadata !DIExpression()), !dbg !56
  call void @llvm.dbg.value(metadata double %s.02, metadata !43, metadata !DIExpression()), !dbg !55
  %3 = mul nsw i64 %indvars.iv19, %2, !dbg !60
  %4 = add nsw i64 %3, %indvars.iv, !dbg !61
  %arrayidx = getelementptr inbounds double, double* %A, i64 %4, !dbg !62
  %5 = load double, double* %arrayidx, align 8, !dbg !62, !tbaa !63
  %6 = mul nsw i64 %indvars.iv, %0, !dbg !67
  %7 = add nsw i64 %6, %indvars.iv13, !dbg !68
  %arrayidx12 = getelementptr inbounds double, double* %B, i64 %7, !dbg !69
  %8 = load double, double* %arrayidx12, align 8, !dbg !69, !tbaa !63
  %9 = call double @llvm.fmuladd.f64(double %5, double %8, double %s.02), !dbg !70
  call void @llvm.dbg.value(metadata double %9, metadata !43, metadata !DIExpression()), !dbg !55
  br label %for.inc, !dbg !71

for.inc:                                          ; preds = %for.body8
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !72
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !46, metadata !DIExpression()), !dbg !56
  call void @llvm.dbg.value(metadata double %9, metadata !43, metadata !DIExpression()), !dbg !55
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !57
  br i1 %exitcond, label %for.body8, label %for.cond5.for.cond.cleanup7_crit_edge, !dbg !59, !llvm.loop !73

for.end:                                          ; preds = %for.cond.cleanup7
  %10 = mul nsw i64 %indvars.iv19, %1, !dbg !77
  %11 = add nsw i64 %10, %indvars.iv13, !dbg !78
  %arrayidx17 = getelementptr inbounds double, double* %C, i64 %11, !dbg !79
  store double %s.0.lcssa, double* %arrayidx17, align 8, !dbg !80, !tbaa !63
  br label %for.inc18, !dbg !81

for.inc18:                                        ; preds = %for.end
  %indvars.iv.next14 = add nuw nsw i64 %indvars.iv13, 1, !dbg !82
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next14, metadata !40, metadata !DIExpression()), !dbg !52
  %exitcond18 = icmp ne i64 %indvars.iv.next14, %wide.trip.count17, !dbg !53
  br i1 %exitcond18, label %for.body4, label %for.cond1.for.cond.cleanup3_crit_edge, !dbg !54, !llvm.loop !83

for.end20:                                        ; preds = %for.cond.cleanup3
  br label %for.inc21, !dbg !84

for.inc21:                                        ; preds = %for.end20
  %indvars.iv.next20 = add nuw nsw i64 %indvars.iv19, 1, !dbg !85
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next20, metadata !38, metadata !DIExpression()), !dbg !49
  %exitcond25 = icmp ne i64 %indvars.iv.next20, %wide.trip.count24, !dbg !50
  br i1 %exitcond25, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !51, !llvm.loop !86

for.end23:                                        ; preds = %for.cond.cleanup
  ret void, !dbg !88
}

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.declare(metadata, metadata, metadata) #1

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #2

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #2

; Function Attrs: nounwind uwtable
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

; Function Attrs: nounwind uwtable
define dso_local void @triangular(i32 noundef %n, double* noundef %x) #0 !dbg !154 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !158, metadata !DIExpression()), !dbg !170
  call void @llvm.dbg.value(metadata double* %x, metadata !159, metadata !DIExpression()), !dbg !170
  call void @llvm.dbg.value(metadata i32 0, metadata !160, metadata !DIExpression()), !dbg !171
  %cmp3 = icmp slt i32 0, %n, !dbg !172
  br i1 %cmp3, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !173

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count19 = zext i32 %n to i64, !dbg !172
  br label %for.body, !dbg !173

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc9
  br label %for.cond.cleanup, !dbg !173

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  br label %for.end11

for.body:                                         ; preds = %for.body.lr.ph, %for.inc9
  %indvars.iv14 = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next15, %for.inc9 ]
  %indvars.iv12 = phi i64 [ 1, %for.body.lr.ph ], [ %indvars.iv.next13, %for.inc9 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv14, metadata !160, metadata !DIExpression()), !dbg !171
  call void @llvm.dbg.value(metadata i32 0, metadata !162, metadata !DIExpression()), !dbg !174
  br label %for.body4, !dbg !175

for.cond.cleanup3:                                ; preds = %for.inc
  br label %for.end

for.body4:                                        ; preds = %for.body, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body ], [ %indvars.iv.next, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !162, metadata !DIExpression()), !dbg !174
  %arrayidx = getelementptr inbounds double, double* %x, i64 %indvars.iv, !dbg !176
  %0 = load double, double* %arrayidx, align 8, !dbg !176, !tbaa !63
  %mul = fmul double %0, 2.000000e+00, !dbg !178
  %arrayidx6 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 %indvars.iv14, !dbg !179
  %arrayidx8 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx6, i64 0, i64 %indvars.iv, !dbg !179
  store double %mul, double* %arrayidx8, align 8, !dbg !180, !tbaa !63
  br label %for.inc, !dbg !179

for.inc:                                          ; preds = %for.body4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !181
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !162, metadata !DIExpression()), !dbg !174
  %exitcond = icmp ne i64 %indvars.iv.next, %indvars.iv12, !dbg !182
  br i1 %exitcond, label %for.body4, label %for.cond.cleanup3, !dbg !175, !llvm.loop !183

for.end:                                          ; preds = %for.cond.cleanup3
  br label %for.inc9, !dbg !184

for.inc9:                                         ; preds = %for.end
  %indvars.iv.next15 = add nuw nsw i64 %indvars.iv14, 1, !dbg !185
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next15, metadata !160, metadata !DIExpression()), !dbg !171
  %indvars.iv.next13 = add nuw nsw i64 %indvars.iv12, 1, !dbg !173
  %exitcond20 = icmp ne i64 %indvars.iv.next15, %wide.trip.count19, !dbg !172
  br i1 %exitcond20, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !173, !llvm.loop !186

for.end11:                                        ; preds = %for.cond.cleanup
  call void @llvm.dbg.value(metadata i32 0, metadata !165, metadata !DIExpression()), !dbg !188
  %cmp147 = icmp slt i32 0, %n, !dbg !189
  br i1 %cmp147, label %for.body16.lr.ph, label %for.cond.cleanup15, !dbg !190

for.body16.lr.ph:                                 ; preds = %for.end11
  %1 = sext i32 %n to i64, !dbg !190
  %wide.trip.count30 = zext i32 %n to i64, !dbg !189
  br label %for.body16, !dbg !190

for.cond13.for.cond.cleanup15_crit_edge:          ; preds = %for.inc30
  br label %for.cond.cleanup15, !dbg !190

for.cond.cleanup15:                               ; preds = %for.cond13.for.cond.cleanup15_crit_edge, %for.end11
  br label %for.end32

for.body16:                                       ; preds = %for.body16.lr.ph, %for.inc30
  %indvars.iv27 = phi i64 [ 0, %for.body16.lr.ph ], [ %indvars.iv.next28, %for.inc30 ]
  %indvars.iv21 = phi i64 [ 1, %for.body16.lr.ph ], [ %indvars.iv.next22, %for.inc30 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv27, metadata !165, metadata !DIExpression()), !dbg !188
  %indvars.iv.next28 = add nuw nsw i64 %indvars.iv27, 1, !dbg !191
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next28, metadata !167, metadata !DIExpression()), !dbg !192
  %cmp195 = icmp slt i64 %indvars.iv.next28, %1, !dbg !193
  br i1 %cmp195, label %for.body21.lr.ph, label %for.cond.cleanup20, !dbg !195

for.body21.lr.ph:                                 ; preds = %for.body16
  %wide.trip.count = zext i32 %n to i64, !dbg !193
  br label %for.body21, !dbg !195

for.cond18.for.cond.cleanup20_crit_edge:          ; preds = %for.inc27
  br label %for.cond.cleanup20, !dbg !195

for.cond.cleanup20:                               ; preds = %for.cond18.for.cond.cleanup20_crit_edge, %for.body16
  br label %for.end29

for.body21:                                       ; preds = %for.body21.lr.ph, %for.inc27
  %indvars.iv23 = phi i64 [ %indvars.iv21, %for.body21.lr.ph ], [ %indvars.iv.next24, %for.inc27 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv23, metadata !167, metadata !DIExpression()), !dbg !192
  %arrayidx23 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 %indvars.iv27, !dbg !196
  %arrayidx25 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx23, i64 0, i64 %indvars.iv23, !dbg !196
  %2 = load double, double* %arrayidx25, align 8, !dbg !196, !tbaa !63
  %3 = load double, double* @total, align 8, !dbg !197, !tbaa !63
  %add26 = fadd double %3, %2, !dbg !197
  store double %add26, double* @total, align 8, !dbg !197, !tbaa !63
  br label %for.inc27, !dbg !198

for.inc27:                                        ; preds = %for.body21
  %indvars.iv.next24 = add nuw nsw i64 %indvars.iv23, 1, !dbg !199
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next24, metadata !167, metadata !DIExpression()), !dbg !192
  %exitcond26 = icmp ne i64 %indvars.iv.next24, %wide.trip.count, !dbg !193
  br i1 %exitcond26, label %for.body21, label %for.cond18.for.cond.cleanup20_crit_edge, !dbg !195, !llvm.loop !200

for.end29:                                        ; preds = %for.cond.cleanup20
  br label %for.inc30, !dbg !201

for.inc30:                                        ; preds = %for.end29
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next28, metadata !165, metadata !DIExpression()), !dbg !188
  %indvars.iv.next22 = add nuw nsw i64 %indvars.iv21, 1, !dbg !190
  %exitcond31 = icmp ne i64 %indvars.iv.next28, %wide.trip.count30, !dbg !189
  br i1 %exitcond31, label %for.body16, label %for.cond13.for.cond.cleanup15_crit_edge, !dbg !190, !llvm.loop !202

for.end32:                                        ; preds = %for.cond.cleanup15
  ret void, !dbg !204
}

; Function Attrs: nounwind uwtable
define dso_local void @calls(i32 noundef %n, double* noundef %x, double* noundef %y) #0 !dbg !205 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !209, metadata !DIExpression()), !dbg !214
  call void @llvm.dbg.value(metadata double* %x, metadata !210, metadata !DIExpression()), !dbg !214
  call void @llvm.dbg.value(metadata double* %y, metadata !211, metadata !DIExpression()), !dbg !214
  call void @llvm.dbg.value(metadata i32 0, metadata !212, metadata !DIExpression()), !dbg !215
  %cmp1 = icmp slt i32 0, %n, !dbg !216
  br i1 %cmp1, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !218

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64, !dbg !216
  br label %for.body, !dbg !218

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc
  br label %for.cond.cleanup, !dbg !218

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  br label %for.end

for.body:                                         ; preds = %for.body.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !212, metadata !DIExpression()), !dbg !215
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !219
  %0 = trunc i64 %indvars.iv.next to i32, !dbg !220
  %call = call double @dot(double* noundef %x, double* noundef %y, i32 noundef %0), !dbg !220
  %arrayidx = getelementptr inbounds double, double* %y, i64 %indvars.iv, !dbg !221
  store double %call, double* %arrayidx, align 8, !dbg !222, !tbaa !63
  br label %for.inc, !dbg !221

for.inc:                                          ; preds = %for.body
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !212, metadata !DIExpression()), !dbg !215
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !216
  br i1 %exitcond, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !218, !llvm.loop !223

for.end:                                          ; preds = %for.cond.cleanup
  ret void, !dbg !225
}

; Function Attrs: nounwind uwtable
define internal double @dot(double* noundef %x, double* noundef %y, i32 noundef %m) #0 !dbg !226 {
entry:
  call void @llvm.dbg.value(metadata double* %x, metadata !232, metadata !DIExpression()), !dbg !238
  call void @llvm.dbg.value(metadata double* %y, metadata !233, metadata !DIExpression()), !dbg !238
  call void @llvm.dbg.value(metadata i32 %m, metadata !234, metadata !DIExpression()), !dbg !238
  call void @llvm.dbg.value(metadata double 0.000000e+00, metadata !235, metadata !DIExpression()), !dbg !238
  call void @llvm.dbg.value(metadata i32 0, metadata !236, metadata !DIExpression()), !dbg !239
  %cmp1 = icmp slt i32 0, %m, !dbg !240
  br i1 %cmp1, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !242

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %m to i64, !dbg !240
  br label %for.body, !dbg !242

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc
  %split = phi double [ %2, %for.inc ]
  br label %for.cond.cleanup, !dbg !242

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  %s.0.lcssa = phi double [ %split, %for.cond.for.cond.cleanup_crit_edge ], [ 0.000000e+00, %entry ], !dbg !238
  br label %for.end

for.body:                                         ; preds = %for.body.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.inc ]
  %s.02 = phi double [ 0.000000e+00, %for.body.lr.ph ], [ %2, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !236, metadata !DIExpression()), !dbg !239
  call void @llvm.dbg.value(metadata double %s.02, metadata !235, metadata !DIExpression()), !dbg !238
  %arrayidx = getelementptr inbounds double, double* %x, i64 %indvars.iv, !dbg !243
  %0 = load double, double* %arrayidx, align 8, !dbg !243, !tbaa !63
  %arrayidx2 = getelementptr inbounds double, double* %y, i64 %indvars.iv, !dbg !244
  %1 = load double, double* %arrayidx2, align 8, !dbg !244, !tbaa !63
  %2 = call double @llvm.fmuladd.f64(double %0, double %1, double %s.02), !dbg !245
  call void @llvm.dbg.value(metadata double %2, metadata !235, metadata !DIExpression()), !dbg !238
  br label %for.inc, !dbg !246

for.inc:                                          ; preds = %for.body
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !247
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !236, metadata !DIExpression()), !dbg !239
  call void @llvm.dbg.value(metadata double %2, metadata !235, metadata !DIExpression()), !dbg !238
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !240
  br i1 %exitcond, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !242, !llvm.loop !248

for.end:                                          ; preds = %for.cond.cleanup
  ret double %s.0.lcssa, !dbg !250
}

; Function Attrs: nounwind uwtable
define dso_local void @branchy(i32 noundef %n, double* noundef %x) #0 !dbg !251 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !253, metadata !DIExpression()), !dbg !257
  call void @llvm.dbg.value(metadata double* %x, metadata !254, metadata !DIExpression()), !dbg !257
  call void @llvm.dbg.value(metadata i32 0, metadata !255, metadata !DIExpression()), !dbg !258
  %cmp2 = icmp slt i32 0, %n, !dbg !259
  br i1 %cmp2, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !261

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count = zext i32 %n to i64, !dbg !259
  br label %for.body, !dbg !261

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc
  br label %for.cond.cleanup, !dbg !261

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  br label %for.end

for.body:                                         ; preds = %for.body.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !255, metadata !DIExpression()), !dbg !258
  %arrayidx = getelementptr inbounds double, double* %x, i64 %indvars.iv, !dbg !262
  %0 = load double, double* %arrayidx, align 8, !dbg !262, !tbaa !63
  %cmp1 = fcmp ogt double %0, 5.000000e-01, !dbg !265
  br i1 %cmp1, label %if.then, label %if.else, !dbg !266

if.then:                                          ; preds = %for.body
  %arrayidx3 = getelementptr inbounds double, double* %x, i64 %indvars.iv, !dbg !267
  %1 = load double, double* %arrayidx3, align 8, !dbg !267, !tbaa !63
  %arrayidx5 = getelementptr inbounds double, double* %x, i64 %indvars.iv, !dbg !268
  %2 = load double, double* %arrayidx5, align 8, !dbg !268, !tbaa !63
  %arrayidx7 = getelementptr inbounds [128 x double], [128 x double]* getelementptr inbounds ([128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 1), i64 0, i64 %indvars.iv, !dbg !269
  %3 = load double, double* %arrayidx7, align 8, !dbg !269, !tbaa !63
  %4 = call double @llvm.fmuladd.f64(double %1, double %2, double %3), !dbg !270
  %arrayidx9 = getelementptr inbounds [128 x double], [128 x double]* getelementptr inbounds ([128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 0), i64 0, i64 %indvars.iv, !dbg !271
  store double %4, double* %arrayidx9, align 8, !dbg !272, !tbaa !63
  br label %if.end, !dbg !271

if.else:                                          ; preds = %for.body
  %5 = load double, double* @total, align 8, !dbg !273, !tbaa !63
  %add = fadd double %5, 1.000000e+00, !dbg !273
  store double %add, double* @total, align 8, !dbg !273, !tbaa !63
  br label %if.end

if.end:                                           ; preds = %if.else, %if.then
  br label %for.inc, !dbg !274

for.inc:                                          ; preds = %if.end
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !275
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !255, metadata !DIExpression()), !dbg !258
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !259
  br i1 %exitcond, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !261, !llvm.loop !276

for.end:                                          ; preds = %for.cond.cleanup
  ret void, !dbg !278
}

; Function Attrs: nounwind uwtable
define dso_local i32 @main(i32 noundef %argc, i8** noundef %argv) #0 !dbg !279 {
entry:
  call void @llvm.dbg.value(metadata i32 %argc, metadata !283, metadata !DIExpression()), !dbg !291
  call void @llvm.dbg.value(metadata i8** %argv, metadata !284, metadata !DIExpression()), !dbg !291
  %cmp = icmp slt i32 %argc, 3, !dbg !292
  br i1 %cmp, label %if.then, label %if.end, !dbg !294

if.then:                                          ; preds = %entry
  %0 = load %struct._IO_FILE*, %struct._IO_FILE** @stderr, align 8, !dbg !295, !tbaa !297
  %arrayidx = getelementptr inbounds i8*, i8** %argv, i64 0, !dbg !299
  %1 = load i8*, i8** %arrayidx, align 8, !dbg !299, !tbaa !297
  %call = call i32 (%struct._IO_FILE*, i8*, ...) @fprintf(%struct._IO_FILE* noundef %0, i8* noundef getelementptr inbounds ([53 x i8], [53 x i8]* @.str, i64 0, i64 0), i8* noundef %1), !dbg !300
  br label %return, !dbg !301

if.end:                                           ; preds = %entry
  %arrayidx1 = getelementptr inbounds i8*, i8** %argv, i64 2, !dbg !302
  %2 = load i8*, i8** %arrayidx1, align 8, !dbg !302, !tbaa !297
  %call2 = call i32 @atoi(i8* noundef %2) #7, !dbg !303
  call void @llvm.dbg.value(metadata i32 %call2, metadata !285, metadata !DIExpression()), !dbg !291
  %cmp3 = icmp slt i32 %call2, 0, !dbg !304
  br i1 %cmp3, label %if.then5, label %lor.lhs.false, !dbg !306

lor.lhs.false:                                    ; preds = %if.end
  %cmp4 = icmp sgt i32 %call2, 128, !dbg !307
  br i1 %cmp4, label %if.then5, label %if.end7, !dbg !308

if.then5:                                         ; preds = %lor.lhs.false, %if.end
  %3 = load %struct._IO_FILE*, %struct._IO_FILE** @stderr, align 8, !dbg !309, !tbaa !297
  %call6 = call i32 (%struct._IO_FILE*, i8*, ...) @fprintf(%struct._IO_FILE* noundef %3, i8* noundef getelementptr inbounds ([20 x i8], [20 x i8]* @.str.1, i64 0, i64 0), i32 noundef 128), !dbg !311
  br label %cleanup65, !dbg !312

if.end7:                                          ; preds = %lor.lhs.false
  %conv = sext i32 %call2 to i64, !dbg !313
  %conv8 = sext i32 %call2 to i64, !dbg !314
  %mul = mul i64 %conv, %conv8, !dbg !315
  %add = add i64 %mul, 1, !dbg !316
  %call9 = call noalias i8* @calloc(i64 noundef %add, i64 noundef 8) #8, !dbg !317
  %4 = bitcast i8* %call9 to double*, !dbg !317
  call void @llvm.dbg.value(metadata double* %4, metadata !286, metadata !DIExpression()), !dbg !291
  %conv10 = sext i32 %call2 to i64, !dbg !318
  %conv11 = sext i32 %call2 to i64, !dbg !319
  %mul12 = mul i64 %conv10, %conv11, !dbg !320
  %add13 = add i64 %mul12, 1, !dbg !321
  %call14 = call noalias i8* @calloc(i64 noundef %add13, i64 noundef 8) #8, !dbg !322
  %5 = bitcast i8* %call14 to double*, !dbg !322
  call void @llvm.dbg.value(metadata double* %5, metadata !287, metadata !DIExpression()), !dbg !291
  %conv15 = sext i32 %call2 to i64, !dbg !323
  %conv16 = sext i32 %call2 to i64, !dbg !324
  %mul17 = mul i64 %conv15, %conv16, !dbg !325
  %add18 = add i64 %mul17, 1, !dbg !326
  %call19 = call noalias i8* @calloc(i64 noundef %add18, i64 noundef 8) #8, !dbg !327
  %6 = bitcast i8* %call19 to double*, !dbg !327
  call void @llvm.dbg.value(metadata double* %6, metadata !288, metadata !DIExpression()), !dbg !291
  call void @llvm.dbg.value(metadata i32 0, metadata !289, metadata !DIExpression()), !dbg !328
  %mul20 = mul i32 %call2, %call2, !dbg !329
  %cmp211 = icmp slt i32 0, %mul20, !dbg !331
  br i1 %cmp211, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !332

for.body.lr.ph:                                   ; preds = %if.end7
  %wide.trip.count = zext i32 %mul20 to i64, !dbg !331
  br label %for.body, !dbg !332

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc
  br label %for.cond.cleanup, !dbg !332

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %if.end7
  br label %for.end

for.body:                                         ; preds = %for.body.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !289, metadata !DIExpression()), !dbg !328
  %7 = trunc i64 %indvars.iv to i32
  %rem.urem = urem i32 %7, 7
  %conv23 = sitofp i32 %rem.urem to double, !dbg !333
  %div = fdiv double %conv23, 7.000000e+00, !dbg !335
  %arrayidx24 = getelementptr inbounds double, double* %4, i64 %indvars.iv, !dbg !336
  store double %div, double* %arrayidx24, align 8, !dbg !337, !tbaa !63
  %8 = trunc i64 %indvars.iv to i32
  %rem25.urem = urem i32 %8, 5
  %conv26 = sitofp i32 %rem25.urem to double, !dbg !338
  %div27 = fdiv double %conv26, 5.000000e+00, !dbg !339
  %arrayidx29 = getelementptr inbounds double, double* %5, i64 %indvars.iv, !dbg !340
  store double %div27, double* %arrayidx29, align 8, !dbg !341, !tbaa !63
  br label %for.inc, !dbg !342

for.inc:                                          ; preds = %for.body
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !343
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !289, metadata !DIExpression()), !dbg !328
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !331
  br i1 %exitcond, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !332, !llvm.loop !344

for.end:                                          ; preds = %for.cond.cleanup
  %arrayidx30 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !346
  %9 = load i8*, i8** %arrayidx30, align 8, !dbg !346, !tbaa !297
  %call31 = call i32 @strcmp(i8* noundef %9, i8* noundef getelementptr inbounds ([7 x i8], [7 x i8]* @.str.2, i64 0, i64 0)) #7, !dbg !348
  %tobool = icmp ne i32 %call31, 0, !dbg !348
  br i1 %tobool, label %if.else, label %if.then32, !dbg !349

if.then32:                                        ; preds = %for.end
  call void @matmul(i32 noundef %call2, double* noundef %4, double* noundef %5, double* noundef %6), !dbg !350
  br label %if.end59, !dbg !350

if.else:                                          ; preds = %for.end
  %arrayidx33 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !351
  %10 = load i8*, i8** %arrayidx33, align 8, !dbg !351, !tbaa !297
  %call34 = call i32 @strcmp(i8* noundef %10, i8* noundef getelementptr inbounds ([8 x i8], [8 x i8]* @.str.3, i64 0, i64 0)) #7, !dbg !353
  %tobool35 = icmp ne i32 %call34, 0, !dbg !353
  br i1 %tobool35, label %if.else37, label %if.then36, !dbg !354

if.then36:                                        ; preds = %if.else
  call void @stencil(i32 noundef %call2), !dbg !355
  br label %if.end58, !dbg !355

if.else37:                                        ; preds = %if.else
  %arrayidx38 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !356
  %11 = load i8*, i8** %arrayidx38, align 8, !dbg !356, !tbaa !297
  %call39 = call i32 @strcmp(i8* noundef %11, i8* noundef getelementptr inbounds ([11 x i8], [11 x i8]* @.str.4, i64 0, i64 0)) #7, !dbg !358
  %tobool40 = icmp ne i32 %call39, 0, !dbg !358
  br i1 %tobool40, label %if.else42, label %if.then41, !dbg !359

if.then41:                                        ; preds = %if.else37
  call void @triangular(i32 noundef %call2, double* noundef %4), !dbg !360
  br label %if.end57, !dbg !360

if.else42:                                        ; preds = %if.else37
  %arrayidx43 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !361
  %12 = load i8*, i8** %arrayidx43, align 8, !dbg !361, !tbaa !297
  %call44 = call i32 @strcmp(i8* noundef %12, i8* noundef getelementptr inbounds ([6 x i8], [6 x i8]* @.str.5, i64 0, i64 0)) #7, !dbg !363
  %tobool45 = icmp ne i32 %call44, 0, !dbg !363
  br i1 %tobool45, label %if.else47, label %if.then46, !dbg !364

if.then46:                                        ; preds = %if.else42
  call void @calls(i32 noundef %call2, double* noundef %4, double* noundef %5), !dbg !365
  br label %if.end56, !dbg !365

if.else47:                                        ; preds = %if.else42
  %arrayidx48 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !366
  %13 = load i8*, i8** %arrayidx48, align 8, !dbg !366, !tbaa !297
  %call49 = call i32 @strcmp(i8* noundef %13, i8* noundef getelementptr inbounds ([8 x i8], [8 x i8]* @.str.6, i64 0, i64 0)) #7, !dbg !368
  %tobool50 = icmp ne i32 %call49, 0, !dbg !368
  br i1 %tobool50, label %if.else52, label %if.then51, !dbg !369

if.then51:                                        ; preds = %if.else47
  call void @branchy(i32 noundef %call2, double* noundef %4), !dbg !370
  br label %if.end55, !dbg !370

if.else52:                                        ; preds = %if.else47
  %14 = load %struct._IO_FILE*, %struct._IO_FILE** @stderr, align 8, !dbg !371, !tbaa !297
  %arrayidx53 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !373
  %15 = load i8*, i8** %arrayidx53, align 8, !dbg !373, !tbaa !297
  %call54 = call i32 (%struct._IO_FILE*, i8*, ...) @fprintf(%struct._IO_FILE* noundef %14, i8* noundef getelementptr inbounds ([19 x i8], [19 x i8]* @.str.7, i64 0, i64 0), i8* noundef %15), !dbg !374
  br label %cleanup, !dbg !375

if.end55:                                         ; preds = %if.then51
  br label %if.end56

if.end56:                                         ; preds = %if.end55, %if.then46
  br label %if.end57

if.end57:                                         ; preds = %if.end56, %if.then41
  br label %if.end58

if.end58:                                         ; preds = %if.end57, %if.then36
  br label %if.end59

if.end59:                                         ; preds = %if.end58, %if.then32
  %arrayidx60 = getelementptr inbounds double, double* %6, i64 0, !dbg !376
  %16 = load double, double* %arrayidx60, align 8, !dbg !376, !tbaa !63
  %17 = load double, double* @total, align 8, !dbg !377, !tbaa !63
  %add61 = fadd double %16, %17, !dbg !378
  %18 = load double, double* getelementptr inbounds ([128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 1, i64 1), align 8, !dbg !379, !tbaa !63
  %call62 = call i32 (i8*, ...) @printf(i8* noundef getelementptr inbounds ([7 x i8], [7 x i8]* @.str.8, i64 0, i64 0), double noundef %add61, double noundef %18), !dbg !380
  %19 = bitcast double* %4 to i8*, !dbg !381
  call void @free(i8* noundef %19) #8, !dbg !382
  %20 = bitcast double* %5 to i8*, !dbg !383
  call void @free(i8* noundef %20) #8, !dbg !384
  %21 = bitcast double* %6 to i8*, !dbg !385
  call void @free(i8* noundef %21) #8, !dbg !386
  br label %cleanup, !dbg !387

cleanup:                                          ; preds = %if.end59, %if.else52
  %retval.0 = phi i32 [ 2, %if.else52 ], [ 0, %if.end59 ], !dbg !291
  br label %cleanup65

cleanup65:                                        ; preds = %cleanup, %if.then5
  %retval.1 = phi i32 [ 2, %if.then5 ], [ %retval.0, %cleanup ], !dbg !291
  br label %return

return:                                           ; preds = %cleanup65, %if.then
  %retval.2 = phi i32 [ 2, %if.then ], [ %retval.1, %cleanup65 ], !dbg !291
  ret i32 %retval.2, !dbg !388
}

declare i32 @fprintf(%struct._IO_FILE* noundef, i8* noundef, ...) #3

; Function Attrs: inlinehint nounwind readonly uwtable willreturn
define available_externally i32 @atoi(i8* noundef nonnull %__nptr) #4 !dbg !389 {
entry:
  call void @llvm.dbg.value(metadata i8* %__nptr, metadata !396, metadata !DIExpression()), !dbg !397
  %call = call i64 @strtol(i8* noundef %__nptr, i8** noundef null, i32 noundef 10) #8, !dbg !398
  %conv = trunc i64 %call to i32, !dbg !399
  ret i32 %conv, !dbg !400
}

; Function Attrs: nounwind
declare noalias i8* @calloc(i64 noundef, i64 noundef) #5

; Function Attrs: nounwind readonly willreturn
declare i32 @strcmp(i8* noundef, i8* noundef) #6

declare i32 @printf(i8* noundef, ...) #3

; Function Attrs: nounwind
declare void @free(i8* noundef) #5

; Function Attrs: nounwind
declare i64 @strtol(i8* noundef, i8** noundef, i32 noundef) #5

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.value(metadata, metadata, metadata) #1

attributes #0 = { nounwind uwtable "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #2 = { argmemonly nofree nosync nounwind willreturn }
attributes #3 = { "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { inlinehint nounwind readonly uwtable willreturn "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nounwind "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #6 = { nounwind readonly willreturn "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #7 = { nounwind readonly willreturn }
attributes #8 = { nounwind }

!llvm.dbg.cu = !{!2}
!llvm.module.flags = !{!22, !23, !24, !25, !26, !27}
!llvm.ident = !{!28}

!0 = !DIGlobalVariableExpression(var: !1, expr: !DIExpression())
!1 = distinct !DIGlobalVariable(name: "G", scope: !2, file: !3, line: 8, type: !17, isLocal: false, isDefinition: true)
!2 = distinct !DICompileUnit(language: DW_LANG_C99, file: !3, producer: "Debian clang version 14.0.6", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, retainedTypes: !4, globals: !14, splitDebugInlining: false, nameTableKind: None)
!3 = !DIFile(filename: "examples/memory/kernels.c", directory: "/work/wt-memory2", checksumkind: CSK_MD5, checksum: "7f45d70fe34da992ee27afdbd004e6be")
!4 = !{!5, !8, !9, !10, !13}
!5 = !DIDerivedType(tag: DW_TAG_typedef, name: "size_t", file: !6, line: 46, baseType: !7)
!6 = !DIFile(filename: "/usr/lib/llvm-14/lib/clang/14.0.6/include/stddef.h", directory: "", checksumkind: CSK_MD5, checksum: "2499dd2361b915724b073282bea3a7bc")
!7 = !DIBasicType(name: "unsigned long", size: 64, encoding: DW_ATE_unsigned)
!8 = !DIBasicType(name: "double", size: 64, encoding: DW_ATE_float)
!9 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!10 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !11, size: 64)
!11 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !12, size: 64)
!12 = !DIBasicType(name: "char", size: 8, encoding: DW_ATE_signed_char)
!13 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: null, size: 64)
!14 = !{!0, !15, !20}
!15 = !DIGlobalVariableExpression(var: !16, expr: !DIExpression())
!16 = distinct !DIGlobalVariable(name: "H", scope: !2, file: !3, line: 9, type: !17, isLocal: false, isDefinition: true)
!17 = !DICompositeType(tag: DW_TAG_array_type, baseType: !8, size: 1048576, elements: !18)
!18 = !{!19, !19}
!19 = !DISubrange(count: 128)
!20 = !DIGlobalVariableExpression(var: !21, expr: !DIExpression())
!21 = distinct !DIGlobalVariable(name: "total", scope: !2, file: !3, line: 10, type: !8, isLocal: false, isDefinition: true)
!22 = !{i32 7, !"Dwarf Version", i32 5}
!23 = !{i32 2, !"Debug Info Version", i32 3}
!24 = !{i32 1, !"wchar_size", i32 4}
!25 = !{i32 7, !"PIC Level", i32 2}
!26 = !{i32 7, !"PIE Level", i32 2}
!27 = !{i32 7, !"uwtable", i32 1}
!28 = !{!"Debian clang version 14.0.6"}
!29 = distinct !DISubprogram(name: "matmul", scope: !3, file: !3, line: 12, type: !30, scopeLine: 12, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !2, retainedNodes: !33)
!30 = !DISubroutineType(types: !31)
!31 = !{null, !9, !32, !32, !32}
!32 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !8, size: 64)
!33 = !{!34, !35, !36, !37, !38, !40, !43, !46}
!34 = !DILocalVariable(name: "n", arg: 1, scope: !29, file: !3, line: 12, type: !9)
!35 = !DILocalVariable(name: "A", arg: 2, scope: !29, file: !3, line: 12, type: !32)
!36 = !DILocalVariable(name: "B", arg: 3, scope: !29, file: !3, line: 12, type: !32)
!37 = !DILocalVariable(name: "C", arg: 4, scope: !29, file: !3, line: 12, type: !32)
!38 = !DILocalVariable(name: "i", scope: !39, file: !3, line: 13, type: !9)
!39 = distinct !DILexicalBlock(scope: !29, file: !3, line: 13, column: 3)
!40 = !DILocalVariable(name: "j", scope: !41, file: !3, line: 14, type: !9)
!41 = distinct !DILexicalBlock(scope: !42, file: !3, line: 14, column: 5)
!42 = distinct !DILexicalBlock(scope: !39, file: !3, line: 13, column: 3)
!43 = !DILocalVariable(name: "s", scope: !44, file: !3, line: 15, type: !8)
!44 = distinct !DILexicalBlock(scope: !45, file: !3, line: 14, column: 33)
!45 = distinct !DILexicalBlock(scope: !41, file: !3, line: 14, column: 5)
!46 = !DILocalVariable(name: "k", scope: !47, file: !3, line: 16, type: !9)
!47 = distinct !DILexicalBlock(scope: !44, file: !3, line: 16, column: 7)
!48 = !DILocation(line: 0, scope: !29)
!49 = !DILocation(line: 0, scope: !39)
!50 = !DILocation(line: 13, column: 21, scope: !42)
!51 = !DILocation(line: 13, column: 3, scope: !39)
!52 = !DILocation(line: 0, scope: !41)
!53 = !DILocation(line: 14, column: 23, scope: !45)
!54 = !DILocation(line: 14, column: 5, scope: !41)
!55 = !DILocation(line: 0, scope: !44)
!56 = !DILocation(line: 0, scope: !47)
!57 = !DILocation(line: 16, column: 25, scope: !58)
!58 = distinct !DILexicalBlock(scope: !47, file: !3, line: 16, column: 7)
!59 = !DILocation(line: 16, column: 7, scope: !47)
!60 = !DILocation(line: 17, column: 18, scope: !58)
!61 = !DILocation(line: 17, column: 22, scope: !58)
!62 = !DILocation(line: 17, column: 14, scope: !58)
!63 = !{!64, !64, i64 0}
!64 = !{!"double", !65, i64 0}
!65 = !{!"omnipotent char", !66, i64 0}
!66 = !{!"Simple C/C++ TBAA"}
!67 = !DILocation(line: 17, column: 33, scope: !58)
!68 = !DILocation(line: 17, column: 37, scope: !58)
!69 = !DILocation(line: 17, column: 29, scope: !58)
!70 = !DILocation(line: 17, column: 11, scope: !58)
!71 = !DILocation(line: 17, column: 9, scope: !58)
!72 = !DILocation(line: 16, column: 31, scope: !58)
!73 = distinct !{!73, !59, !74, !75, !76}
!74 = !DILocation(line: 17, column: 40, scope: !47)
!75 = !{!"llvm.loop.mustprogress"}
!76 = !{!"llvm.loop.unroll.disable"}
!77 = !DILocation(line: 18, column: 11, scope: !44)
!78 = !DILocation(line: 18, column: 15, scope: !44)
!79 = !DILocation(line: 18, column: 7, scope: !44)
!80 = !DILocation(line: 18, column: 20, scope: !44)
!81 = !DILocation(line: 19, column: 5, scope: !44)
!82 = !DILocation(line: 14, column: 29, scope: !45)
!83 = distinct !{!83, !54, !84, !75, !76}
!84 = !DILocation(line: 19, column: 5, scope: !41)
!85 = !DILocation(line: 13, column: 27, scope: !42)
!86 = distinct !{!86, !51, !87, !75, !76}
!87 = !DILocation(line: 19, column: 5, scope: !39)
!88 = !DILocation(line: 20, column: 1, scope: !29)
!89 = distinct !DISubprogram(name: "stencil", scope: !3, file: !3, line: 23, type: !90, scopeLine: 23, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !2, retainedNodes: !92)
!90 = !DISubroutineType(types: !91)
!91 = !{null, !9}
!92 = !{!93, !94, !96, !99, !101}
!93 = !DILocalVariable(name: "n", arg: 1, scope: !89, file: !3, line: 23, type: !9)
!94 = !DILocalVariable(name: "i", scope: !95, file: !3, line: 24, type: !9)
!95 = distinct !DILexicalBlock(scope: !89, file: !3, line: 24, column: 3)
!96 = !DILocalVariable(name: "j", scope: !97, file: !3, line: 25, type: !9)
!97 = distinct !DILexicalBlock(scope: !98, file: !3, line: 25, column: 5)
!98 = distinct !DILexicalBlock(scope: !95, file: !3, line: 24, column: 3)
!99 = !DILocalVariable(name: "i", scope: !100, file: !3, line: 27, type: !9)
!100 = distinct !DILexicalBlock(scope: !89, file: !3, line: 27, column: 3)
!101 = !DILocalVariable(name: "j", scope: !102, file: !3, line: 28, type: !9)
!102 = distinct !DILexicalBlock(scope: !103, file: !3, line: 28, column: 5)
!103 = distinct !DILexicalBlock(scope: !100, file: !3, line: 27, column: 3)
!104 = !DILocation(line: 0, scope: !89)
!105 = !DILocation(line: 0, scope: !95)
!106 = !DILocation(line: 24, column: 25, scope: !98)
!107 = !DILocation(line: 24, column: 21, scope: !98)
!108 = !DILocation(line: 24, column: 3, scope: !95)
!109 = !DILocation(line: 0, scope: !97)
!110 = !DILocation(line: 25, column: 27, scope: !111)
!111 = distinct !DILexicalBlock(scope: !97, file: !3, line: 25, column: 5)
!112 = !DILocation(line: 25, column: 23, scope: !111)
!113 = !DILocation(line: 25, column: 5, scope: !97)
!114 = !DILocation(line: 26, column: 24, scope: !111)
!115 = !DILocation(line: 26, column: 38, scope: !111)
!116 = !DILocation(line: 26, column: 34, scope: !111)
!117 = !DILocation(line: 26, column: 32, scope: !111)
!118 = !DILocation(line: 26, column: 52, scope: !111)
!119 = !DILocation(line: 26, column: 48, scope: !111)
!120 = !DILocation(line: 26, column: 46, scope: !111)
!121 = !DILocation(line: 26, column: 62, scope: !111)
!122 = !DILocation(line: 26, column: 69, scope: !111)
!123 = !DILocation(line: 26, column: 60, scope: !111)
!124 = !DILocation(line: 26, column: 76, scope: !111)
!125 = !DILocation(line: 25, column: 33, scope: !111)
!126 = !DILocation(line: 26, column: 74, scope: !111)
!127 = !DILocation(line: 26, column: 21, scope: !111)
!128 = !DILocation(line: 26, column: 7, scope: !111)
!129 = !DILocation(line: 26, column: 15, scope: !111)
!130 = distinct !{!130, !113, !131, !75, !76}
!131 = !DILocation(line: 26, column: 87, scope: !97)
!132 = !DILocation(line: 24, column: 31, scope: !98)
!133 = distinct !{!133, !108, !134, !75, !76}
!134 = !DILocation(line: 26, column: 87, scope: !95)
!135 = !DILocation(line: 0, scope: !100)
!136 = !DILocation(line: 27, column: 25, scope: !103)
!137 = !DILocation(line: 27, column: 21, scope: !103)
!138 = !DILocation(line: 27, column: 3, scope: !100)
!139 = !DILocation(line: 0, scope: !102)
!140 = !DILocation(line: 28, column: 27, scope: !141)
!141 = distinct !DILexicalBlock(scope: !102, file: !3, line: 28, column: 5)
!142 = !DILocation(line: 28, column: 23, scope: !141)
!143 = !DILocation(line: 28, column: 5, scope: !102)
!144 = !DILocation(line: 29, column: 17, scope: !141)
!145 = !DILocation(line: 29, column: 7, scope: !141)
!146 = !DILocation(line: 29, column: 15, scope: !141)
!147 = !DILocation(line: 28, column: 33, scope: !141)
!148 = distinct !{!148, !143, !149, !75, !76}
!149 = !DILocation(line: 29, column: 23, scope: !102)
!150 = !DILocation(line: 27, column: 31, scope: !103)
!151 = distinct !{!151, !138, !152, !75, !76}
!152 = !DILocation(line: 29, column: 23, scope: !100)
!153 = !DILocation(line: 30, column: 1, scope: !89)
!154 = distinct !DISubprogram(name: "triangular", scope: !3, file: !3, line: 33, type: !155, scopeLine: 33, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !2, retainedNodes: !157)
!155 = !DISubroutineType(types: !156)
!156 = !{null, !9, !32}
!157 = !{!158, !159, !160, !162, !165, !167}
!158 = !DILocalVariable(name: "n", arg: 1, scope: !154, file: !3, line: 33, type: !9)
!159 = !DILocalVariable(name: "x", arg: 2, scope: !154, file: !3, line: 33, type: !32)
!160 = !DILocalVariable(name: "i", scope: !161, file: !3, line: 34, type: !9)
!161 = distinct !DILexicalBlock(scope: !154, file: !3, line: 34, column: 3)
!162 = !DILocalVariable(name: "j", scope: !163, file: !3, line: 35, type: !9)
!163 = distinct !DILexicalBlock(scope: !164, file: !3, line: 35, column: 5)
!164 = distinct !DILexicalBlock(scope: !161, file: !3, line: 34, column: 3)
!165 = !DILocalVariable(name: "i", scope: !166, file: !3, line: 37, type: !9)
!166 = distinct !DILexicalBlock(scope: !154, file: !3, line: 37, column: 3)
!167 = !DILocalVariable(name: "j", scope: !168, file: !3, line: 38, type: !9)
!168 = distinct !DILexicalBlock(scope: !169, file: !3, line: 38, column: 5)
!169 = distinct !DILexicalBlock(scope: !166, file: !3, line: 37, column: 3)
!170 = !DILocation(line: 0, scope: !154)
!171 = !DILocation(line: 0, scope: !161)
!172 = !DILocation(line: 34, column: 21, scope: !164)
!173 = !DILocation(line: 34, column: 3, scope: !161)
!174 = !DILocation(line: 0, scope: !163)
!175 = !DILocation(line: 35, column: 5, scope: !163)
!176 = !DILocation(line: 36, column: 17, scope: !177)
!177 = distinct !DILexicalBlock(scope: !163, file: !3, line: 35, column: 5)
!178 = !DILocation(line: 36, column: 22, scope: !177)
!179 = !DILocation(line: 36, column: 7, scope: !177)
!180 = !DILocation(line: 36, column: 15, scope: !177)
!181 = !DILocation(line: 35, column: 30, scope: !177)
!182 = !DILocation(line: 35, column: 23, scope: !177)
!183 = distinct !{!183, !175, !184, !75, !76}
!184 = !DILocation(line: 36, column: 24, scope: !163)
!185 = !DILocation(line: 34, column: 27, scope: !164)
!186 = distinct !{!186, !173, !187, !75, !76}
!187 = !DILocation(line: 36, column: 24, scope: !161)
!188 = !DILocation(line: 0, scope: !166)
!189 = !DILocation(line: 37, column: 21, scope: !169)
!190 = !DILocation(line: 37, column: 3, scope: !166)
!191 = !DILocation(line: 37, column: 27, scope: !169)
!192 = !DILocation(line: 0, scope: !168)
!193 = !DILocation(line: 38, column: 27, scope: !194)
!194 = distinct !DILexicalBlock(scope: !168, file: !3, line: 38, column: 5)
!195 = !DILocation(line: 38, column: 5, scope: !168)
!196 = !DILocation(line: 39, column: 16, scope: !194)
!197 = !DILocation(line: 39, column: 13, scope: !194)
!198 = !DILocation(line: 39, column: 7, scope: !194)
!199 = !DILocation(line: 38, column: 33, scope: !194)
!200 = distinct !{!200, !195, !201, !75, !76}
!201 = !DILocation(line: 39, column: 22, scope: !168)
!202 = distinct !{!202, !190, !203, !75, !76}
!203 = !DILocation(line: 39, column: 22, scope: !166)
!204 = !DILocation(line: 40, column: 1, scope: !154)
!205 = distinct !DISubprogram(name: "calls", scope: !3, file: !3, line: 50, type: !206, scopeLine: 50, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !2, retainedNodes: !208)
!206 = !DISubroutineType(types: !207)
!207 = !{null, !9, !32, !32}
!208 = !{!209, !210, !211, !212}
!209 = !DILocalVariable(name: "n", arg: 1, scope: !205, file: !3, line: 50, type: !9)
!210 = !DILocalVariable(name: "x", arg: 2, scope: !205, file: !3, line: 50, type: !32)
!211 = !DILocalVariable(name: "y", arg: 3, scope: !205, file: !3, line: 50, type: !32)
!212 = !DILocalVariable(name: "i", scope: !213, file: !3, line: 51, type: !9)
!213 = distinct !DILexicalBlock(scope: !205, file: !3, line: 51, column: 3)
!214 = !DILocation(line: 0, scope: !205)
!215 = !DILocation(line: 0, scope: !213)
!216 = !DILocation(line: 51, column: 21, scope: !217)
!217 = distinct !DILexicalBlock(scope: !213, file: !3, line: 51, column: 3)
!218 = !DILocation(line: 51, column: 3, scope: !213)
!219 = !DILocation(line: 51, column: 27, scope: !217)
!220 = !DILocation(line: 52, column: 12, scope: !217)
!221 = !DILocation(line: 52, column: 5, scope: !217)
!222 = !DILocation(line: 52, column: 10, scope: !217)
!223 = distinct !{!223, !218, !224, !75, !76}
!224 = !DILocation(line: 52, column: 27, scope: !213)
!225 = !DILocation(line: 53, column: 1, scope: !205)
!226 = distinct !DISubprogram(name: "dot", scope: !3, file: !3, line: 42, type: !227, scopeLine: 42, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !2, retainedNodes: !231)
!227 = !DISubroutineType(types: !228)
!228 = !{!8, !229, !229, !9}
!229 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !230, size: 64)
!230 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !8)
!231 = !{!232, !233, !234, !235, !236}
!232 = !DILocalVariable(name: "x", arg: 1, scope: !226, file: !3, line: 42, type: !229)
!233 = !DILocalVariable(name: "y", arg: 2, scope: !226, file: !3, line: 42, type: !229)
!234 = !DILocalVariable(name: "m", arg: 3, scope: !226, file: !3, line: 42, type: !9)
!235 = !DILocalVariable(name: "s", scope: !226, file: !3, line: 43, type: !8)
!236 = !DILocalVariable(name: "k", scope: !237, file: !3, line: 44, type: !9)
!237 = distinct !DILexicalBlock(scope: !226, file: !3, line: 44, column: 3)
!238 = !DILocation(line: 0, scope: !226)
!239 = !DILocation(line: 0, scope: !237)
!240 = !DILocation(line: 44, column: 21, scope: !241)
!241 = distinct !DILexicalBlock(scope: !237, file: !3, line: 44, column: 3)
!242 = !DILocation(line: 44, column: 3, scope: !237)
!243 = !DILocation(line: 45, column: 10, scope: !241)
!244 = !DILocation(line: 45, column: 17, scope: !241)
!245 = !DILocation(line: 45, column: 7, scope: !241)
!246 = !DILocation(line: 45, column: 5, scope: !241)
!247 = !DILocation(line: 44, column: 27, scope: !241)
!248 = distinct !{!248, !242, !249, !75, !76}
!249 = !DILocation(line: 45, column: 20, scope: !237)
!250 = !DILocation(line: 46, column: 3, scope: !226)
!251 = distinct !DISubprogram(name: "branchy", scope: !3, file: !3, line: 56, type: !155, scopeLine: 56, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !2, retainedNodes: !252)
!252 = !{!253, !254, !255}
!253 = !DILocalVariable(name: "n", arg: 1, scope: !251, file: !3, line: 56, type: !9)
!254 = !DILocalVariable(name: "x", arg: 2, scope: !251, file: !3, line: 56, type: !32)
!255 = !DILocalVariable(name: "i", scope: !256, file: !3, line: 57, type: !9)
!256 = distinct !DILexicalBlock(scope: !251, file: !3, line: 57, column: 3)
!257 = !DILocation(line: 0, scope: !251)
!258 = !DILocation(line: 0, scope: !256)
!259 = !DILocation(line: 57, column: 21, scope: !260)
!260 = distinct !DILexicalBlock(scope: !256, file: !3, line: 57, column: 3)
!261 = !DILocation(line: 57, column: 3, scope: !256)
!262 = !DILocation(line: 58, column: 9, scope: !263)
!263 = distinct !DILexicalBlock(scope: !264, file: !3, line: 58, column: 9)
!264 = distinct !DILexicalBlock(scope: !260, file: !3, line: 57, column: 31)
!265 = !DILocation(line: 58, column: 14, scope: !263)
!266 = !DILocation(line: 58, column: 9, scope: !264)
!267 = !DILocation(line: 59, column: 17, scope: !263)
!268 = !DILocation(line: 59, column: 24, scope: !263)
!269 = !DILocation(line: 59, column: 31, scope: !263)
!270 = !DILocation(line: 59, column: 29, scope: !263)
!271 = !DILocation(line: 59, column: 7, scope: !263)
!272 = !DILocation(line: 59, column: 15, scope: !263)
!273 = !DILocation(line: 61, column: 13, scope: !263)
!274 = !DILocation(line: 62, column: 3, scope: !264)
!275 = !DILocation(line: 57, column: 27, scope: !260)
!276 = distinct !{!276, !261, !277, !75, !76}
!277 = !DILocation(line: 62, column: 3, scope: !256)
!278 = !DILocation(line: 63, column: 1, scope: !251)
!279 = distinct !DISubprogram(name: "main", scope: !3, file: !3, line: 65, type: !280, scopeLine: 65, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !2, retainedNodes: !282)
!280 = !DISubroutineType(types: !281)
!281 = !{!9, !9, !10}
!282 = !{!283, !284, !285, !286, !287, !288, !289}
!283 = !DILocalVariable(name: "argc", arg: 1, scope: !279, file: !3, line: 65, type: !9)
!284 = !DILocalVariable(name: "argv", arg: 2, scope: !279, file: !3, line: 65, type: !10)
!285 = !DILocalVariable(name: "n", scope: !279, file: !3, line: 70, type: !9)
!286 = !DILocalVariable(name: "a", scope: !279, file: !3, line: 75, type: !32)
!287 = !DILocalVariable(name: "b", scope: !279, file: !3, line: 76, type: !32)
!288 = !DILocalVariable(name: "c", scope: !279, file: !3, line: 77, type: !32)
!289 = !DILocalVariable(name: "i", scope: !290, file: !3, line: 78, type: !9)
!290 = distinct !DILexicalBlock(scope: !279, file: !3, line: 78, column: 3)
!291 = !DILocation(line: 0, scope: !279)
!292 = !DILocation(line: 66, column: 12, scope: !293)
!293 = distinct !DILexicalBlock(scope: !279, file: !3, line: 66, column: 7)
!294 = !DILocation(line: 66, column: 7, scope: !279)
!295 = !DILocation(line: 67, column: 13, scope: !296)
!296 = distinct !DILexicalBlock(scope: !293, file: !3, line: 66, column: 17)
!297 = !{!298, !298, i64 0}
!298 = !{!"any pointer", !65, i64 0}
!299 = !DILocation(line: 67, column: 78, scope: !296)
!300 = !DILocation(line: 67, column: 5, scope: !296)
!301 = !DILocation(line: 68, column: 5, scope: !296)
!302 = !DILocation(line: 70, column: 16, scope: !279)
!303 = !DILocation(line: 70, column: 11, scope: !279)
!304 = !DILocation(line: 71, column: 9, scope: !305)
!305 = distinct !DILexicalBlock(scope: !279, file: !3, line: 71, column: 7)
!306 = !DILocation(line: 71, column: 13, scope: !305)
!307 = !DILocation(line: 71, column: 18, scope: !305)
!308 = !DILocation(line: 71, column: 7, scope: !279)
!309 = !DILocation(line: 72, column: 13, scope: !310)
!310 = distinct !DILexicalBlock(scope: !305, file: !3, line: 71, column: 26)
!311 = !DILocation(line: 72, column: 5, scope: !310)
!312 = !DILocation(line: 73, column: 5, scope: !310)
!313 = !DILocation(line: 75, column: 22, scope: !279)
!314 = !DILocation(line: 75, column: 34, scope: !279)
!315 = !DILocation(line: 75, column: 32, scope: !279)
!316 = !DILocation(line: 75, column: 36, scope: !279)
!317 = !DILocation(line: 75, column: 15, scope: !279)
!318 = !DILocation(line: 76, column: 22, scope: !279)
!319 = !DILocation(line: 76, column: 34, scope: !279)
!320 = !DILocation(line: 76, column: 32, scope: !279)
!321 = !DILocation(line: 76, column: 36, scope: !279)
!322 = !DILocation(line: 76, column: 15, scope: !279)
!323 = !DILocation(line: 77, column: 22, scope: !279)
!324 = !DILocation(line: 77, column: 34, scope: !279)
!325 = !DILocation(line: 77, column: 32, scope: !279)
!326 = !DILocation(line: 77, column: 36, scope: !279)
!327 = !DILocation(line: 77, column: 15, scope: !279)
!328 = !DILocation(line: 0, scope: !290)
!329 = !DILocation(line: 78, column: 25, scope: !330)
!330 = distinct !DILexicalBlock(scope: !290, file: !3, line: 78, column: 3)
!331 = !DILocation(line: 78, column: 21, scope: !330)
!332 = !DILocation(line: 78, column: 3, scope: !290)
!333 = !DILocation(line: 79, column: 12, scope: !334)
!334 = distinct !DILexicalBlock(scope: !330, file: !3, line: 78, column: 35)
!335 = !DILocation(line: 79, column: 28, scope: !334)
!336 = !DILocation(line: 79, column: 5, scope: !334)
!337 = !DILocation(line: 79, column: 10, scope: !334)
!338 = !DILocation(line: 80, column: 12, scope: !334)
!339 = !DILocation(line: 80, column: 28, scope: !334)
!340 = !DILocation(line: 80, column: 5, scope: !334)
!341 = !DILocation(line: 80, column: 10, scope: !334)
!342 = !DILocation(line: 81, column: 3, scope: !334)
!343 = !DILocation(line: 78, column: 31, scope: !330)
!344 = distinct !{!344, !332, !345, !75, !76}
!345 = !DILocation(line: 81, column: 3, scope: !290)
!346 = !DILocation(line: 82, column: 15, scope: !347)
!347 = distinct !DILexicalBlock(scope: !279, file: !3, line: 82, column: 7)
!348 = !DILocation(line: 82, column: 8, scope: !347)
!349 = !DILocation(line: 82, column: 7, scope: !279)
!350 = !DILocation(line: 82, column: 35, scope: !347)
!351 = !DILocation(line: 83, column: 20, scope: !352)
!352 = distinct !DILexicalBlock(scope: !347, file: !3, line: 83, column: 12)
!353 = !DILocation(line: 83, column: 13, scope: !352)
!354 = !DILocation(line: 83, column: 12, scope: !347)
!355 = !DILocation(line: 83, column: 41, scope: !352)
!356 = !DILocation(line: 84, column: 20, scope: !357)
!357 = distinct !DILexicalBlock(scope: !352, file: !3, line: 84, column: 12)
!358 = !DILocation(line: 84, column: 13, scope: !357)
!359 = !DILocation(line: 84, column: 12, scope: !352)
!360 = !DILocation(line: 84, column: 44, scope: !357)
!361 = !DILocation(line: 85, column: 20, scope: !362)
!362 = distinct !DILexicalBlock(scope: !357, file: !3, line: 85, column: 12)
!363 = !DILocation(line: 85, column: 13, scope: !362)
!364 = !DILocation(line: 85, column: 12, scope: !357)
!365 = !DILocation(line: 85, column: 39, scope: !362)
!366 = !DILocation(line: 86, column: 20, scope: !367)
!367 = distinct !DILexicalBlock(scope: !362, file: !3, line: 86, column: 12)
!368 = !DILocation(line: 86, column: 13, scope: !367)
!369 = !DILocation(line: 86, column: 12, scope: !362)
!370 = !DILocation(line: 86, column: 41, scope: !367)
!371 = !DILocation(line: 87, column: 18, scope: !372)
!372 = distinct !DILexicalBlock(scope: !367, file: !3, line: 87, column: 8)
!373 = !DILocation(line: 87, column: 49, scope: !372)
!374 = !DILocation(line: 87, column: 10, scope: !372)
!375 = !DILocation(line: 87, column: 59, scope: !372)
!376 = !DILocation(line: 88, column: 21, scope: !279)
!377 = !DILocation(line: 88, column: 28, scope: !279)
!378 = !DILocation(line: 88, column: 26, scope: !279)
!379 = !DILocation(line: 88, column: 35, scope: !279)
!380 = !DILocation(line: 88, column: 3, scope: !279)
!381 = !DILocation(line: 89, column: 8, scope: !279)
!382 = !DILocation(line: 89, column: 3, scope: !279)
!383 = !DILocation(line: 89, column: 17, scope: !279)
!384 = !DILocation(line: 89, column: 12, scope: !279)
!385 = !DILocation(line: 89, column: 26, scope: !279)
!386 = !DILocation(line: 89, column: 21, scope: !279)
!387 = !DILocation(line: 90, column: 3, scope: !279)
!388 = !DILocation(line: 91, column: 1, scope: !279)
!389 = distinct !DISubprogram(name: "atoi", scope: !390, file: !390, line: 362, type: !391, scopeLine: 363, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !2, retainedNodes: !395)
!390 = !DIFile(filename: "/usr/include/stdlib.h", directory: "", checksumkind: CSK_MD5, checksum: "4b47dc81a92f1fe77a152c0aac236718")
!391 = !DISubroutineType(types: !392)
!392 = !{!9, !393}
!393 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !394, size: 64)
!394 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !12)
!395 = !{!396}
!396 = !DILocalVariable(name: "__nptr", arg: 1, scope: !389, file: !390, line: 362, type: !393)
!397 = !DILocation(line: 0, scope: !389)
!398 = !DILocation(line: 364, column: 16, scope: !389)
!399 = !DILocation(line: 364, column: 10, scope: !389)
!400 = !DILocation(line: 364, column: 3, scope: !389)
