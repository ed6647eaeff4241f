#!/usr/bin/env python3
# A log of a device whose axes are turned from mouse3d's frame (x = left, y = down, z = backward),
# a person's motions at 200 Hz: still, a too-small turn, a quarter turn left, the far edge up 30°.
import math, sys
def qmul(a, b):
    w1,x1,y1,z1=a; w2,x2,y2,z2=b
    return (w1*w2-x1*x2-y1*y2-z1*z2, w1*x2+x1*w2+y1*z2-z1*y2, w1*y2-x1*z2+y1*w2+z1*x2, w1*z2+x1*y2-y1*x2+z1*w2)
def rot(q, v):
    w,x,y,z=q; p=(0,)+tuple(v); c=(w,-x,-y,-z)
    r=qmul(qmul(q,p),c); return r[1:]
frame=((0,1,0),(0,0,-1),(-1,0,0))
def turn(v): return tuple(sum(frame[i][j]*v[j] for j in range(3)) for i in range(3))
motions=[(3,(0,0,0)),(0.5,(0,0,40)),(1.5,(0,0,0)),(2,(0,0,45)),(1.5,(0,0,0)),(1,(0,-30,0)),(3,(0,0,0))]
q=(1,0,0,0); t=0; out=["t,gx,gy,gz,ax,ay,az"]
for sec,rate in motions:
    for _ in range(round(sec*200)):
        r=[math.radians(c) for c in rate]; n=math.sqrt(sum(c*c for c in r))
        if n>0:
            a=n*0.005; s=math.sin(a/2)/n
            q=qmul(q,(math.cos(a/2),r[0]*s,r[1]*s,r[2]*s))
        t+=0.005
        f=rot((q[0],-q[1],-q[2],-q[3]),(0,0,9.80665))
        g=turn(r); acc=turn(f)
        out.append("%.3f,%r,%r,%r,%r,%r,%r"%(t,*g,*acc))
open(sys.argv[1],"w").write("\n".join(out)+"\n")
